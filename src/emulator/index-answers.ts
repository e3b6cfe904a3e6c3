import type { AgentSearch } from './agent-search.js';
import { hitLink } from './answer.js';
import type { ResearchPlan } from './research-plan.js';

/*
 * What the fake agent adds from the index when a question asks which files use a symbol, or how many
 * files have it: the same exhaustive search a suite generator runs (`/\bname\b/ case:yes count:all`),
 * so a generated suite mostly passes and its failures are real disagreements (docs/generate.md).
 */

/** Files a usage answer lists. */
const MAX_LISTED = 20;

export type IndexQuestion = 'usage' | 'count';

/** Whether a question asks for the files that use something, or for how many files have it. */
export function indexQuestionOf(text: string): IndexQuestion | undefined {
  if (/\bhow many (?:files|places|modules|sources)\b/i.test(text)) return 'count';
  if (/\bwhich (?:files|modules|sources)\b|\b(?:list|name) (?:the|all) files\b/i.test(text)) return 'usage';
  return undefined;
}

/** The symbol a question is about: its first identifier, when the plan has one and a scope. */
export function indexSubject(plan: ResearchPlan): string | undefined {
  if (plan.repositories.length === 0) return undefined;
  return plan.targets.find((t) => t.kind === 'identifier')?.text;
}

/**
 * The answer's paragraph from the index: the count of files, or the files themselves (their first use
 * linked). Undefined when the search has no such lookup.
 */
export async function indexParagraph(kind: IndexQuestion, name: string, plan: ResearchPlan, search: AgentSearch, linkBase: string): Promise<string | undefined> {
  if (!search.filesWith) return undefined;
  const { files, complete } = await search.filesWith(name, plan.repositories);
  const where = plan.repositories.join(', ');
  const atLeast = complete ? '' : 'at least ';
  const count = `${atLeast}${files.length} ${files.length === 1 ? 'file' : 'files'}`;
  if (kind === 'count') return `\`${name}\` appears in ${count} of ${where} (as a whole word, case-sensitive).`;
  if (files.length === 0) return `No file of ${where} has \`${name}\`.`;
  const listed = files.slice(0, MAX_LISTED).map((f, i) => `${i + 1}. [${f.path}:${f.lineNumber}](${hitLink(linkBase, f)}) \`${name}\``);
  const more = files.length > MAX_LISTED ? [`… and ${files.length - MAX_LISTED} more.`] : [];
  return [`\`${name}\` is used in ${count} of ${where}:`, '', ...listed, ...more].join('\n');
}
