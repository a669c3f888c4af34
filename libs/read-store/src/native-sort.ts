import type { Doc, Sort } from './read-store.port';

type AnyObject = Record<string, unknown>;

/**
 * Sorts with a plain comparator when every sort field holds only numbers,
 * or only strings, across the documents (the usual case: instants, names):
 * mingo's general sort, which groups by BSON type, is then not needed.
 * Stable, as mingo's is. Undefined when some field needs the general sort
 * (missing, null, mixed types, arrays, objects).
 */
export function nativeSort(docs: Doc[], sort: Sort): Doc[] | undefined {
  const fields = Object.entries(sort);
  const keys: (number | string)[][] = docs.map(() => []);
  for (const [field] of fields) {
    let kind: 'number' | 'string' | undefined;
    const path = field.split('.');
    for (let i = 0; i < docs.length; i++) {
      const value = valueAt(docs[i], path);
      const type = typeof value;
      if ((type !== 'number' && type !== 'string') || Number.isNaN(value)) return undefined;
      if (kind === undefined) kind = type as 'number' | 'string';
      else if (kind !== type) return undefined;
      keys[i].push(value as number | string);
    }
  }
  const order = docs.map((_, i) => i);
  order.sort((a, b) => {
    for (const [k, [, direction]] of fields.entries()) {
      const x = keys[a][k];
      const y = keys[b][k];
      if (x < y) return -direction;
      if (x > y) return direction;
    }
    return a - b;
  });
  return order.map((i) => docs[i]);
}

function valueAt(doc: Doc, path: string[]): unknown {
  let value: unknown = doc;
  for (const part of path) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as AnyObject)[part];
  }
  return value;
}
