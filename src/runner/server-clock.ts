/**
 * What a target's clock said, from the `Date` header of its replies: the send window of a lost request is
 * measured on the server's clock, whatever the local skew (a server 10 minutes behind) or pace (an
 * emulator whose time runs faster than the real one, which dsbench cannot know).
 */
export class ServerClock {
  /** [local epoch ms the reply arrived, server ms it said], both increasing; one per server second. */
  private readonly seen: Array<[number, number]> = [];

  /** A reply's Date header, seen at local epoch time `receivedAt` (after the reply arrived). */
  observe(serverDate: string | undefined, receivedAt = Date.now()): void {
    const server = Date.parse(serverDate ?? '');
    if (Number.isNaN(server)) return;
    const last = this.seen[this.seen.length - 1];
    if (last && (server <= last[1] || receivedAt < last[0])) return;
    this.seen.push([receivedAt, server]);
  }

  /**
   * A lower bound of the server's time at local epoch time `localMs`, or undefined when no reply arrived
   * before then. A Date header is written before its reply arrives and the server's clock only moves on,
   * so at `localMs` the server's time was at least what the last reply received by then said, at any pace.
   */
  atLeast(localMs: number): number | undefined {
    let low = 0;
    let high = this.seen.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((this.seen[mid] as [number, number])[0] <= localMs) low = mid + 1;
      else high = mid;
    }
    return low === 0 ? undefined : (this.seen[low - 1] as [number, number])[1];
  }
}
