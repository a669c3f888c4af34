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
  const fields = Object.keys(sort);
  const directions = fields.map((field) => sort[field]);
  // Column by field: the comparator reads two values and allocates nothing.
  const columns: (number | string)[][] = [];
  for (const field of fields) {
    let kind: 'number' | 'string' | undefined;
    const path = field.split('.');
    const column: (number | string)[] = new Array(docs.length);
    for (let i = 0; i < docs.length; i++) {
      const value = valueAt(docs[i], path);
      const type = typeof value;
      if ((type !== 'number' && type !== 'string') || Number.isNaN(value)) return undefined;
      if (kind === undefined) kind = type as 'number' | 'string';
      else if (kind !== type) return undefined;
      column[i] = value as number | string;
    }
    columns.push(column);
  }
  const order = docs.map((_, i) => i);
  order.sort((a, b) => {
    for (let k = 0; k < columns.length; k++) {
      const x = columns[k][a];
      const y = columns[k][b];
      if (x < y) return -directions[k];
      if (x > y) return directions[k];
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
