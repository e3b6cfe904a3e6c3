// Types of the four undici files src/http/undici.ts imports (undici ships types for its index only).
declare module 'undici/lib/dispatcher/agent.js' {
  const Agent: typeof import('undici').Agent;
  export default Agent;
}
declare module 'undici/lib/api/api-request.js' {
  const request: (this: import('undici').Dispatcher, options: import('undici').Dispatcher.RequestOptions) => Promise<import('undici').Dispatcher.ResponseData>;
  export default request;
}
declare module 'undici/lib/core/errors.js' {
  const errors: typeof import('undici').errors;
  export default errors;
}
declare module 'undici/lib/core/util.js' {
  const util: { headerNameToString(name: Buffer): string };
  export default util;
}
