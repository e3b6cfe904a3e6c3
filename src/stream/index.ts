export { runSearch, SEARCH_ABORTED_MESSAGE, SearchOptionsSchema, type SearchOptions } from './run.js';
export { SearchParamsSchema, parseSearchParams, type SearchParams, type SearchParamsInput } from './params.js';
export {
  SearchResultSchema,
  VerdictSchema,
  FailureSchema,
  type SearchResult,
  type Verdict,
  type Failure,
  type Skipped,
  type Filter,
  type Alert,
} from './result.js';
export { STREAM_PATH } from './request.js';
