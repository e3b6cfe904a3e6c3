// What the fake agent searches with: the corpus search by default, or a caller's own (EmulatorHooks.search).

export interface SearchHit {
  repository: string;
  path: string;
  lineNumber: number;
  preview: string;
  /** The commit the answer's links pin (`/r/<repo>@<rev>/-/blob/...`); without it they name no revision. */
  revision?: string | undefined;
  /** Last line of the cited span; without it a link cites `lineNumber` alone. */
  endLine?: number | undefined;
  /** The cited span's text, shown as evidence under the main finding. */
  snippet?: string | undefined;
}

/**
 * Code search the agent uses for its facts; the integrator plugs in a corpus search. Queries are in the
 * instance's query language: a bare term (`RetryHandler`) when nothing scopes the question, otherwise
 * with `repo:^…$ archived:yes fork:yes` and, for a look inside one file, `file:^…$` filters.
 */
export interface AgentSearch {
  (query: string, limit: number): Promise<SearchHit[]>;
  /**
   * Full names of the searchable repositories, so the agent can tell which ones a question names
   * (`undici`, `@types/node`, `github.com/npm/undici`) and scope its searches to them. Without it no
   * question is scoped.
   */
  repositories?: () => Promise<string[]>;
  /** Where the symbol index says a name is defined in these repositories; without it, only searches find definitions. */
  definitions?: (name: string, repositories: readonly string[]) => Promise<SearchHit[]>;
  /** Every file of these repositories with the name as a whole word (index-answers.ts); without it, no counts or file lists. */
  filesWith?: (name: string, repositories: readonly string[]) => Promise<{ files: SearchHit[]; complete: boolean }>;
}
