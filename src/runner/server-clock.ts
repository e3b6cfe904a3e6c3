/**
 * What a target's clock said, from the `Date` header of its replies: the send window of a lost request is
 * measured on the server's clock, whatever the local skew (a server 10 minutes behind) or pace (an
 * emulator whose time runs faster than the real one, which dsbench cannot know).
 */
export class ServerClock {
  /**
   * Local epoch ms each reply arrived and the server ms it said, both increasing; one per server second
   * (one per reply on a fast emulator, so two flat number arrays: 16 bytes an entry, not a pair object).
   */
  private readonly local: number[] = [];
  private readonly server: number[] = [];

  /** A reply's Date header, seen at local epoch time `receivedAt` (after the reply arrived). */
  observe(serverDate: string | undefined, receivedAt = Date.now()): void {
    const server = Date.parse(serverDate ?? '');
    if (Number.isNaN(server)) return;
    const last = this.local.length - 1;
    if (last >= 0 && (server <= (this.server[last] as number) || receivedAt < (this.local[last] as number))) return;
    this.local.push(receivedAt);
    this.server.push(server);
  }

  /**
   * A lower bound of the server's time at local epoch time `localMs`, or undefined when no reply arrived
   * before then. A Date header is written before its reply arrives and the server's clock only moves on,
   * so at `localMs` the server's time was at least what the last reply received by then said, at any pace.
   */
  atLeast(localMs: number): number | undefined {
    let low = 0;
    let high = this.local.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((this.local[mid] as number) <= localMs) low = mid + 1;
      else high = mid;
    }
    return low === 0 ? undefined : this.server[low - 1];
  }
}
