/**
 * What a target's clock said, from the `Date` header of its replies: the send window of a lost request is
 * measured on the server's clock, whatever the local skew (a server 10 minutes behind) or pace (an
 * emulator whose time runs faster: `timeScale` real ms per server ms).
 */
export class ServerClock {
  private serverMs: number | undefined;
  private localMs = 0;

  constructor(private readonly timeScale: number) {}

  /** A reply's Date header, seen at local epoch time `receivedAt` (after the reply arrived). */
  observe(serverDate: string | undefined, receivedAt = Date.now()): void {
    const server = Date.parse(serverDate ?? '');
    if (Number.isNaN(server)) return;
    this.serverMs = server;
    this.localMs = receivedAt;
  }

  get known(): boolean {
    return this.serverMs !== undefined;
  }

  /**
   * A lower bound of the server's time at local epoch time `localMs`: the Date header was written before
   * the reply arrived (and is floored to the second), so the server's time then was at least what it said.
   */
  atLeast(localMs: number): number | undefined {
    if (this.serverMs === undefined) return undefined;
    return this.serverMs - (this.localMs - localMs) / this.timeScale;
  }
}
