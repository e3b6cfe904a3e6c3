import { combine, type Hash64 } from './hash.js';
import { KNOWN_TYPES, hasFile } from './match-types.js';

const fileKey: Hash64 = { hi: 0, lo: 0 };

/**
 * Counts of one `matches` event, collected before anything reaches the tally: an event that turns out
 * malformed halfway must not leave half of its matches counted.
 */
export class MatchBatch {
  readonly counted = new Float64Array(KNOWN_TYPES.length);
  objects = 0;
  invalid = 0;
  unknown: Map<string, number> | undefined;
  /** Hashes as (hi, lo) pairs; `repoLength`/`fileLength` are the used lengths in numbers. */
  repoKeys: Int32Array = new Int32Array(256);
  repoLength = 0;
  fileKeys: Int32Array = new Int32Array(256);
  fileLength = 0;

  reset(): void {
    this.counted.fill(0);
    this.objects = 0;
    this.invalid = 0;
    this.unknown = undefined;
    this.repoLength = 0;
    this.fileLength = 0;
  }

  /** One match object of a known type; `repo`/`path` are hashes of its names, when it has them. */
  addMatch(type: number, count: number, repo: Hash64 | undefined, path: Hash64 | undefined): void {
    this.counted[type]! += count;
    this.objects++;
    if (repo === undefined) return;
    this.addRepo(repo.hi, repo.lo);
    if (path === undefined || !hasFile(type)) return;
    combine(repo.hi, repo.lo, path.hi, path.lo, fileKey);
    this.addFile(fileKey.hi, fileKey.lo);
  }

  addUnknown(type: string): void {
    this.unknown ??= new Map();
    this.unknown.set(type, (this.unknown.get(type) ?? 0) + 1);
  }

  private addRepo(hi: number, lo: number): void {
    if (this.repoLength + 2 > this.repoKeys.length) this.repoKeys = grown(this.repoKeys);
    this.repoKeys[this.repoLength++] = hi;
    this.repoKeys[this.repoLength++] = lo;
  }

  private addFile(hi: number, lo: number): void {
    if (this.fileLength + 2 > this.fileKeys.length) this.fileKeys = grown(this.fileKeys);
    this.fileKeys[this.fileLength++] = hi;
    this.fileKeys[this.fileLength++] = lo;
  }
}

function grown(a: Int32Array): Int32Array {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}
