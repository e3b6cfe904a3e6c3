import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter } from 'yaml';

/** 1-based line and column. */
export interface Position {
  line: number;
  col: number;
}

function start(node: unknown): number | undefined {
  const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
  return range?.[0];
}

/**
 * Where a value path (as in a zod issue) sits in a parsed YAML (or JSON) document: the key or the
 * value it names, or the deepest enclosing node that exists when the path goes further than the file.
 */
export function positionOf(doc: Document, counter: LineCounter, path: readonly PropertyKey[], at: 'key' | 'value'): Position {
  let node: unknown = doc.contents;
  let offset = start(node) ?? 0;
  for (const [i, segment] of path.entries()) {
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
      if (!pair) break;
      if (at === 'key' && i === path.length - 1) {
        offset = start(pair.key) ?? offset;
        break;
      }
      node = pair.value;
      offset = start(node) ?? start(pair.key) ?? offset;
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
      offset = start(node) ?? offset;
    } else {
      break;
    }
  }
  return counter.linePos(offset);
}
