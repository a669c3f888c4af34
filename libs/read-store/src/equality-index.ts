import type { Doc, Filter } from './read-store.port';

type AnyObject = Record<string, unknown>;

/**
 * The in-memory store's secondary index on the leading fields of a declared
 * index: ids by those fields' values, so equalities (or `$in`) on all of
 * them look at the matching documents only. On one field, arrays count by
 * their elements, as in MongoDB; a document whose path runs through an array
 * (or, on several fields, holds one) is kept aside and always a candidate.
 */
export class EqualityIndex {
  private readonly byKey = new Map<string, Set<string>>();
  private readonly loose = new Set<string>();

  constructor(readonly paths: string[]) {}

  add(doc: Doc): void {
    const keys = this.keysOf(doc);
    if (keys === null) {
      this.loose.add(doc._id);
      return;
    }
    for (const key of keys) {
      let ids = this.byKey.get(key);
      if (!ids) this.byKey.set(key, (ids = new Set()));
      ids.add(doc._id);
    }
  }

  remove(doc: Doc): void {
    const keys = this.keysOf(doc);
    if (keys === null) {
      this.loose.delete(doc._id);
      return;
    }
    for (const key of keys) {
      const ids = this.byKey.get(key);
      if (!ids) continue;
      ids.delete(doc._id);
      if (ids.size === 0) this.byKey.delete(key);
    }
  }

  /**
   * Ids that may match the filter's equalities (or `$in`) on these paths, a
   * superset of the matches; undefined when it lacks one on some path.
   */
  candidates(filter: Filter): ReadonlySet<string> | undefined {
    const keys = this.lookups(filter);
    if (!keys) return undefined;
    // One key and nothing kept aside (the usual lookup): its own set, not a copy (callers only read it).
    if (keys.length === 1 && this.loose.size === 0) return this.byKey.get(keys[0]) ?? NONE;
    const out = new Set(this.loose);
    for (const key of keys) for (const id of this.byKey.get(key) ?? []) out.add(id);
    return out;
  }

  /** How many candidates `candidates` would give, without gathering them (to pick the narrowest index). */
  estimate(filter: Filter): number | undefined {
    const keys = this.lookups(filter);
    if (!keys) return undefined;
    let n = this.loose.size;
    for (const key of keys) n += this.byKey.get(key)?.size ?? 0;
    return n;
  }

  private lookups(filter: Filter): string[] | undefined {
    let keys = [''];
    for (const [i, path] of this.paths.entries()) {
      const wanted = equalityKeys(filter[path]);
      if (!wanted || keys.length * wanted.length > MAX_LOOKUPS) return undefined;
      keys = keys.flatMap((k) => wanted.map((w) => (i === 0 ? w : `${k}\u0000${w}`)));
    }
    return keys;
  }

  /** The keys a document is found under, or null when it must always be a candidate. */
  private keysOf(doc: Doc): string[] | null {
    if (this.paths.length === 1) return keysAt(doc, this.paths[0]);
    const parts: string[] = [];
    for (const path of this.paths) {
      const keys = keysAt(doc, path);
      if (keys === null || Array.isArray(valueAt(doc, path))) return null;
      if (keys.length === 0) return []; // a missing or unindexed value matches no scalar equality
      parts.push(keys[0]);
    }
    return [parts.join('\u0000')];
  }
}

const NONE: ReadonlySet<string> = new Set();

/** Most keys one lookup combines (`$in` on several fields multiplies them). */
const MAX_LOOKUPS = 256;

/** Keys of the scalar values an equality can match on: strings, numbers, booleans (null and objects are not indexed). */
function scalarKey(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return `s${value}`;
    case 'number':
      return Number.isNaN(value) ? undefined : `n${value}`;
    case 'boolean':
      return `b${value}`;
    default:
      return undefined;
  }
}

/** The value at a dotted path, or ARRAY_ON_PATH when an array comes before its end. */
function valueAt(doc: Doc, path: string): unknown {
  let value: unknown = doc;
  for (const part of path.split('.')) {
    if (Array.isArray(value)) return ARRAY_ON_PATH;
    value = value !== null && typeof value === 'object' ? (value as AnyObject)[part] : undefined;
  }
  return value;
}

const ARRAY_ON_PATH = Symbol('array on path');

/** The keys of one path's value (an array's scalar elements), or null when the path runs through an array. */
function keysAt(doc: Doc, path: string): string[] | null {
  const value = valueAt(doc, path);
  if (value === ARRAY_ON_PATH) return null;
  const values = Array.isArray(value) ? value : [value];
  const keys: string[] = [];
  for (const v of values) {
    const key = scalarKey(v);
    if (key !== undefined) keys.push(key);
  }
  return keys;
}

/** The keys an equality condition asks for: `v`, `{ $eq: v }` or `{ $in: [...] }` of scalars; else undefined. */
function equalityKeys(condition: unknown): string[] | undefined {
  const direct = scalarKey(condition);
  if (direct !== undefined) return [direct];
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) return undefined;
  const ops = Object.keys(condition);
  if (ops.length !== 1) return undefined;
  const operand = (condition as AnyObject)[ops[0]];
  if (ops[0] === '$eq') {
    const key = scalarKey(operand);
    return key === undefined ? undefined : [key];
  }
  if (ops[0] === '$in' && Array.isArray(operand)) {
    const keys = operand.map(scalarKey);
    return keys.every((k) => k !== undefined) ? (keys as string[]) : undefined;
  }
  return undefined;
}
