import { isDeepStrictEqual } from 'node:util';
import { update as applyOperator } from 'mingo/updater';
import type { Doc, Update } from './read-store.port';

type AnyObject = Record<string, unknown>;

/**
 * The common updates done without a deep copy: `$set`, `$setOnInsert`,
 * `$unset`, `$inc`, `$max` and `$min` on top-level fields, or on fields one
 * level down in an embedded document (`parent.key`, as the checkpoints'
 * positions are kept). The result is a shallow copy sharing the (frozen)
 * values it does not change, so an update costs what it changes, not the
 * document's size. Undefined when the update needs the general path (deeper
 * paths, array elements, other operators, mixed types).
 */
export function shallowUpdate(
  doc: Doc,
  update: Update,
  inserting: boolean,
): { next: AnyObject; changed: boolean } | undefined {
  const fields = new Set<string>();
  const parents = new Set<string>();
  const steps: { operator: string; path: Path; value: unknown }[] = [];
  for (const operator in update) {
    if (!SUPPORTED.has(operator)) return undefined;
    const spec = update[operator as keyof Update] as Record<string, unknown>;
    for (const field in spec) {
      const value = spec[field];
      const path = pathOf(field);
      if (!path) return undefined;
      // One field under two operators (MongoDB refuses it): left to the general path as before.
      if (fields.has(field)) return undefined;
      fields.add(field);
      if (path.parent !== undefined) {
        const container = doc[path.parent];
        if (container !== undefined && !isPlainObject(container)) return undefined;
        parents.add(path.parent);
      }
      const current = valueAt(doc, path);
      if (operator === '$inc' && !(isNumber(value) && (current === undefined || isNumber(current))))
        return undefined;
      if ((operator === '$max' || operator === '$min') && !comparable(current, value)) return undefined;
      steps.push({ operator, path, value });
    }
  }
  // A document and a field inside it in one update: MongoDB refuses it; the general path answers.
  for (const parent of parents) if (fields.has(parent)) return undefined;

  const next: AnyObject = { ...doc };
  const copied = new Set<string>();
  /** The object holding the field, copied (and put in place) the first time it changes. */
  const holderOf = (path: Path): AnyObject => {
    if (path.parent === undefined) return next;
    if (!copied.has(path.parent)) {
      next[path.parent] = { ...((next[path.parent] as AnyObject | undefined) ?? {}) };
      copied.add(path.parent);
    }
    return next[path.parent] as AnyObject;
  };
  let changed = false;
  for (const { operator, path, value } of steps) {
    if (operator === '$setOnInsert' && !inserting) continue;
    const present = path.parent === undefined || next[path.parent] !== undefined;
    const current = valueAt(next, path);
    const has = present && path.key in (path.parent === undefined ? next : (next[path.parent] as AnyObject));
    let updated: unknown;
    switch (operator) {
      case '$set':
      case '$setOnInsert':
        if (has && isDeepStrictEqual(current, value)) continue;
        holderOf(path)[path.key] = structuredCopy(value);
        changed = true;
        continue;
      case '$unset':
        if (!has) continue;
        delete holderOf(path)[path.key];
        changed = true;
        continue;
      case '$inc':
        updated = ((current as number | undefined) ?? 0) + (value as number);
        break;
      case '$max':
        updated = current === undefined || (value as number) > (current as number) ? value : current;
        break;
      case '$min':
        updated = current === undefined || (value as number) < (current as number) ? value : current;
        break;
    }
    // mingo counts every $inc as a change, even by 0; so does this, to answer as it did.
    if (has && updated === current && operator !== '$inc') continue;
    holderOf(path)[path.key] = updated;
    changed = true;
  }
  return { next, changed };
}

interface Path {
  parent?: string;
  key: string;
}

/** Paths already read from their field names (the same few names recur in every update), up to a bound. */
const paths = new Map<string, Path | null>();
const MAX_PATHS = 10_000;

/** `field` or `parent.key`; undefined for anything else (deeper, array indexes, operators, `_id`). */
function pathOf(field: string): Path | undefined {
  let path = paths.get(field);
  if (path === undefined) {
    if (paths.size >= MAX_PATHS) paths.clear();
    path = readPath(field) ?? null;
    paths.set(field, path);
  }
  return path ?? undefined;
}

function readPath(field: string): Path | undefined {
  const parts = field.split('.');
  if (parts.length > 2 || parts[0] === '_id') return undefined;
  if (parts.some((p) => p === '' || p.startsWith('$') || /^\d+$/.test(p))) return undefined;
  return parts.length === 1 ? { key: parts[0] } : { parent: parts[0], key: parts[1] };
}

function valueAt(doc: AnyObject, path: Path): unknown {
  if (path.parent === undefined) return doc[path.key];
  return (doc[path.parent] as AnyObject | undefined)?.[path.key];
}

const isPlainObject = (v: unknown): v is AnyObject =>
  v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;

const SUPPORTED = new Set(['$set', '$setOnInsert', '$unset', '$inc', '$max', '$min']);

const isNumber = (v: unknown): v is number => typeof v === 'number' && !Number.isNaN(v);

/** `$max`/`$min` here only between numbers, or strings, or onto a missing field. */
function comparable(current: unknown, value: unknown): boolean {
  if (isNumber(value)) return current === undefined || isNumber(current);
  if (typeof value === 'string') return current === undefined || typeof current === 'string';
  return false;
}

/**
 * The top level of a value set is copied, as mingo's updater copies it (its
 * "copy" mode), so the stored document never shares that container with the
 * caller; what lies below is shared, and frozen with the document.
 */
function structuredCopy<T>(value: T): T {
  if (Array.isArray(value)) return [...value] as T;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return { ...value } as T;
  }
  return value;
}

/** Any update, with mingo's updater on a deep copy. */
export function deepUpdate(
  doc: Doc,
  update: Update,
  inserting: boolean,
): { next: AnyObject; changed: boolean } {
  const next = structuredClone(doc) as AnyObject;
  let changed = false;
  for (const [operator, spec] of Object.entries(update)) {
    if (operator === '$setOnInsert') {
      if (inserting) changed = applyOperator(next, { $set: spec }).length > 0 || changed;
      continue;
    }
    changed =
      applyOperator(next, { [operator]: spec } as unknown as Parameters<typeof applyOperator>[1]).length >
        0 || changed;
  }
  return { next, changed };
}

/** A document after an update, computed as the memory store computes it (a new object; the one given is not changed). */
export function updatedDocument(doc: Doc, update: Update, inserting: boolean): Doc {
  return (shallowUpdate(doc, update, inserting) ?? deepUpdate(doc, update, inserting)).next as Doc;
}
