export { startEmulator, type RunningEmulator, type TokenInfo } from './server.js';
export { EmulatorOptionsSchema, type EmulatorOptions, type ResolvedEmulatorOptions } from './options.js';
export type { EmulatorHooks } from './hooks.js';
export { DEFAULT_USERS, type EmulatorUser, type Scope } from './users.js';
export type { AgentSearch, SearchHit } from './agent-search.js';
export type { FailureKind } from './outcome.js';
export type { Route, RouteContext, RouteHandler, ErrorWriter } from './routes.js';
export { FAULT_KINDS, type InjectFault, type AfterActionFault } from './faults.js';
export { sendJson, sendText } from './http-io.js';
export { VirtualClock } from './clock.js';
export { REALISTIC } from './noise.js';
export type { QuestionRecordView } from './service.js';
export { NO_TOKEN_TEXT, BAD_TOKEN_TEXT } from './auth.js';
export { LEGACY_BASE } from './legacy-api.js';
export { VERSIONED_BASE } from './versioned-api.js';
export { LegacyConversationSchema, LegacyQuestionSchema, LegacyListSchema } from './legacy-wire.js';
export {
  VersionedConversationSchema,
  VersionedQuestionSchema,
  ListConversationSummariesResponseSchema,
} from './versioned-wire.js';
export { ADMIN_PREFIX } from './admin.js';
export { formatLogEntry, type RequestLogEntry } from './request-log.js';
