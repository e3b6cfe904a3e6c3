/** Named monotonic counters with a plain-object snapshot. */
export class Counters {
  private readonly counts = new Map<string, number>();

  /** Make a name show up as 0 before its first increment. */
  register(name: string): void {
    if (!this.counts.has(name)) this.counts.set(name, 0);
  }

  increment(name: string): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
  }

  snapshot(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }
}
