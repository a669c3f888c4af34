import type { Filter } from './read-store.port';

/** true / false, or undefined when only the full query engine can say. */
export type Verdict = boolean | undefined;
export type SimplePredicate = (doc: Record<string, unknown>) => Verdict;

type Scalar = string | number | boolean | null;
const COMPARISONS = new Set(['$eq', '$ne', '$lt', '$lte', '$gt', '$gte', '$in']);

const isScalar = (v: unknown): v is Scalar =>
  v === null ||
  typeof v === 'string' ||
  typeof v === 'boolean' ||
  (typeof v === 'number' && !Number.isNaN(v));

/**
 * A fast path for the most common read-model filters: field equalities and
 * comparisons against scalars, evaluated with MongoDB's semantics without
 * building a query engine per call. Returns undefined for any other filter;
 * the predicate answers undefined for a document it cannot judge (a path
 * through an array or a sub-document), and the caller asks mingo instead.
 */
export function compileSimpleFilter(filter: Filter): SimplePredicate | undefined {
  const checks: { path: string[]; test: (value: unknown) => Verdict }[] = [];
  for (const [field, condition] of Object.entries(filter)) {
    if (field.startsWith('$')) return undefined;
    const test = conditionTest(condition);
    if (!test) return undefined;
    checks.push({ path: field.split('.'), test });
  }
  return (doc) => {
    for (const { path, test } of checks) {
      const value = resolve(doc, path);
      if (value === UNDECIDABLE) return undefined;
      const verdict = test(value);
      if (verdict !== true) return verdict;
    }
    return true;
  };
}

const UNDECIDABLE = Symbol('undecidable');

/** The value at a path; undefined when missing; UNDECIDABLE through or at an array or sub-document. */
function resolve(doc: Record<string, unknown>, path: string[]): unknown {
  let current: unknown = doc;
  for (const key of path) {
    if (current === undefined || current === null) return undefined;
    if (typeof current !== 'object' || Array.isArray(current)) return UNDECIDABLE;
    current = (current as Record<string, unknown>)[key];
  }
  return current === undefined || isScalar(current) ? current : UNDECIDABLE;
}

function conditionTest(condition: unknown): ((value: unknown) => Verdict) | undefined {
  if (isScalar(condition)) return (value) => equals(value, condition);
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) return undefined;
  const entries = Object.entries(condition);
  if (entries.length === 0 || !entries.every(([op]) => COMPARISONS.has(op))) return undefined;
  const tests: ((value: unknown) => boolean)[] = [];
  for (const [op, operand] of entries) {
    if (op === '$in') {
      if (!Array.isArray(operand) || !operand.every(isScalar)) return undefined;
      // A Set: a long `$in` (a running set's fingerprints) costs one lookup per document, not one per item.
      const wanted = new Set<unknown>(operand);
      const wantsNull = wanted.has(null);
      tests.push((value) => wanted.has(value) || (wantsNull && value === undefined));
      continue;
    }
    if (!isScalar(operand)) return undefined;
    if (op === '$eq') tests.push((value) => equals(value, operand));
    else if (op === '$ne') tests.push((value) => !equals(value, operand));
    else tests.push((value) => compare(op, value, operand));
  }
  return (value) => tests.every((t) => t(value));
}

/** MongoDB equality on scalars: a missing field equals null. */
function equals(value: unknown, operand: Scalar): boolean {
  if (operand === null) return value === null || value === undefined;
  return value === operand;
}

/** Range comparisons only within one type (numbers with numbers, strings with strings). */
function compare(op: string, value: unknown, operand: Scalar): boolean {
  if (value === undefined || value === null || operand === null) {
    return (op === '$lte' || op === '$gte') && (value ?? null) === operand;
  }
  if (typeof value !== typeof operand || typeof value === 'boolean') {
    return (
      typeof value === 'boolean' &&
      typeof operand === 'boolean' &&
      compareOrdered(op, Number(value), Number(operand))
    );
  }
  return compareOrdered(op, value as number | string, operand as number | string);
}

function compareOrdered<T extends number | string>(op: string, a: T, b: T): boolean {
  switch (op) {
    case '$lt':
      return a < b;
    case '$lte':
      return a <= b;
    case '$gt':
      return a > b;
    default:
      return a >= b;
  }
}
