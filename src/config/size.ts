import { UsageError } from '../errors/errors.js';

const UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, kb: 1024, kib: 1024, mb: 1024 ** 2, mib: 1024 ** 2, gb: 1024 ** 3, gib: 1024 ** 3 };

/** A size in bytes given as `65536`, `512KB`, `64MB` or `1GB` (binary units); a UsageError naming `source` otherwise. */
export function parseSize(value: string, source: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(value.trim());
  const unit = match ? UNITS[match[2]!.toLowerCase()] : undefined;
  const bytes = match && unit !== undefined ? Math.floor(Number(match[1]) * unit) : NaN;
  if (!(bytes >= 1 && bytes <= Number.MAX_SAFE_INTEGER)) {
    throw new UsageError(`${source}: "${value}" is not a size; give bytes or a number with KB, MB or GB, e.g. 64MB`);
  }
  return bytes;
}
