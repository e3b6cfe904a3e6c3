import { selectPercentiles } from '../stats/percentiles.js';

// Summaries are per target (scope `target`, all of its items) and per target and tag (scope `tag`).
// An item belongs to its target's group and to one group per tag it has. Rows are grouped through a
// "combination" (target + tag list, as stored): a run has few of them, so per-row memory is one index.

export interface GroupKey {
  scope: 'target' | 'tag';
  target: string;
  /** Empty for scope `target`. */
  tag: string;
}

export class Grouping {
  readonly groups: GroupKey[] = [];
  private readonly groupIndex = new Map<string, number>();
  private readonly comboIndex = new Map<string, number>();
  /** Group indices of each combination. */
  readonly comboGroups: number[][] = [];
  // The last combination asked for: an item's turns come one after another.
  private lastTarget: string | undefined;
  private lastTags: string | undefined;
  private lastCombo = -1;

  /** The combination of a target and its stored tags (JSON array text); adds its groups on first sight. */
  combo(target: string, tagsJson: string): number {
    if (target === this.lastTarget && tagsJson === this.lastTags) return this.lastCombo;
    const key = `${target}\u0000${tagsJson}`;
    let index = this.comboIndex.get(key);
    if (index === undefined) {
      const tags = [...new Set(JSON.parse(tagsJson) as string[])];
      const groups = [this.group({ scope: 'target', target, tag: '' }), ...tags.map((tag) => this.group({ scope: 'tag', target, tag }))];
      index = this.comboGroups.push(groups) - 1;
      this.comboIndex.set(key, index);
    }
    this.lastTarget = target;
    this.lastTags = tagsJson;
    this.lastCombo = index;
    return index;
  }

  group(key: GroupKey): number {
    const id = `${key.target}\u0000${key.scope}\u0000${key.tag}`;
    let index = this.groupIndex.get(id);
    if (index === undefined) {
      index = this.groups.push(key) - 1;
      this.groupIndex.set(id, index);
    }
    return index;
  }

  /** Groups in report order: targets in `targetOrder` (others after, by name), each target row before its tags (by name). */
  ordered(targetOrder: readonly string[]): number[] {
    const rank = (t: string): number => {
      const i = targetOrder.indexOf(t);
      return i === -1 ? targetOrder.length : i;
    };
    return this.groups
      .map((_, i) => i)
      .sort((a, b) => {
        const x = this.groups[a]!;
        const y = this.groups[b]!;
        return (
          rank(x.target) - rank(y.target) ||
          cmp(x.target, y.target) ||
          (x.scope === y.scope ? 0 : x.scope === 'target' ? -1 : 1) ||
          cmp(x.tag, y.tag)
        );
      });
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Numeric columns of many rows, kept as doubles (NaN for absent), plus each row's combination: about
 * 8 bytes per metric per row. Percentiles of a group gather its values into one scratch buffer at a time.
 */
export class MetricColumns {
  private combos: Uint32Array;
  private columns: Float64Array[];
  length = 0;

  constructor(
    readonly metrics: number,
    capacity: number,
  ) {
    const size = Math.max(16, capacity);
    this.combos = new Uint32Array(size);
    this.columns = Array.from({ length: metrics }, () => new Float64Array(size));
  }

  push(combo: number, values: ReadonlyArray<number | null | undefined>): void {
    if (this.length === this.combos.length) this.grow();
    const i = this.length++;
    this.combos[i] = combo;
    for (let m = 0; m < this.metrics; m++) {
      const v = values[m];
      this.columns[m]![i] = v === null || v === undefined ? Number.NaN : v;
    }
  }

  /**
   * Nearest-rank percentiles `ps` of every metric, for every group: result[group][metric][p].
   * Each metric's values are laid out by combination once; a group gathers its combinations' values and
   * selects its ranks. Memory beyond the columns: two buffers of the row count.
   */
  percentiles(grouping: Grouping, ps: readonly number[]): Array<Array<Array<number | null>>> {
    const combos = grouping.comboGroups.length;
    const groupCombos: number[][] = grouping.groups.map(() => []);
    grouping.comboGroups.forEach((groups, combo) => {
      for (const g of new Set(groups)) groupCombos[g]!.push(combo);
    });
    const byCombo = new Float64Array(Math.max(1, this.length));
    const scratch = new Float64Array(Math.max(1, this.length));
    const start = new Uint32Array(combos + 1);
    const result: Array<Array<Array<number | null>>> = grouping.groups.map(() => []);
    for (const column of this.columns) {
      // Counting sort by combination, leaving out absent values.
      start.fill(0);
      for (let i = 0; i < this.length; i++) if (!Number.isNaN(column[i]!)) start[this.combos[i]! + 1]!++;
      for (let c = 0; c < combos; c++) start[c + 1]! += start[c]!;
      const next = start.slice(0, combos);
      for (let i = 0; i < this.length; i++) {
        const v = column[i]!;
        if (!Number.isNaN(v)) byCombo[next[this.combos[i]!]!++] = v;
      }
      groupCombos.forEach((members, g) => {
        let n = 0;
        for (const c of members) {
          scratch.set(byCombo.subarray(start[c]!, start[c + 1]!), n);
          n += start[c + 1]! - start[c]!;
        }
        result[g]!.push(selectPercentiles(scratch.subarray(0, n), ps));
      });
    }
    return result;
  }

  private grow(): void {
    const size = this.combos.length * 2;
    const combos = new Uint32Array(size);
    combos.set(this.combos);
    this.combos = combos;
    this.columns = this.columns.map((c) => {
      const bigger = new Float64Array(size);
      bigger.set(c);
      return bigger;
    });
  }
}
