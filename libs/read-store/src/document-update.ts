import { isDeepStrictEqual } from 'node:util';
import { update as applyOperator } from 'mingo/updater';
import type { Doc, Update } from './read-store.port';

type AnyObject = Record<string, unknown>;

/**
 * The common updates done without a deep copy: `$set`, `$setOnInsert`,
 * `$unset`, `$inc`, `$max` and `$min` on top-level fields. The result is a
 * shallow copy sharing the (frozen) values it does not change, so an update
 * costs what it changes, not the document's size. Undefined when the update
 * needs the general path (dotted fields, other operators, mixed types).
 */
export function shallowUpdate(
  doc: Doc,
  update: Update,
  inserting: boolean,
): { next: AnyObject; changed: boolean } | undefined {
  const fields = new Set<string>();
  for (const [operator, spec] of Object.entries(update)) {
    if (!SUPPORTED.has(operator)) return undefined;
    for (const [field, value] of Object.entries(spec)) {
      if (field.includes('.') || field.startsWith('$') || field === '_id') return undefined;
      // One field under two operators (MongoDB refuses it): left to the general path as before.
      if (fields.has(field)) return undefined;
      fields.add(field);
      if (operator === '$inc' && !(isNumber(value) && (doc[field] === undefined || isNumber(doc[field]))))
        return undefined;
      if ((operator === '$max' || operator === '$min') && !comparable(doc[field], value)) return undefined;
    }
  }
  const next: AnyObject = { ...doc };
  let changed = false;
  for (const [operator, spec] of Object.entries(update)) {
    if (operator === '$setOnInsert' && !inserting) continue;
    for (const [field, value] of Object.entries(spec)) {
      const current = next[field];
      let updated: unknown;
      switch (operator) {
        case '$set':
        case '$setOnInsert':
          if (field in next && isDeepStrictEqual(current, value)) continue;
          next[field] = structuredCopy(value);
          changed = true;
          continue;
        case '$unset':
          if (!(field in next)) continue;
          delete next[field];
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
      if (field in next && updated === current && operator !== '$inc') continue;
      next[field] = updated;
      changed = true;
    }
  }
  return { next, changed };
}

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
