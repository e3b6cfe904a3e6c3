/** A query the emulator cannot run; its message is shown to the user in an alert. */
export class QuerySyntaxError extends Error {
  override name = 'QuerySyntaxError';
}
