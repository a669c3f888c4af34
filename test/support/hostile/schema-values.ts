import { OpenApiDocument, resolved, Schema } from './openapi';
import { Random } from './seed';

/**
 * Values derived from a schema the way an attacker would choose them: the
 * largest the schema allows (strings at maxLength, arrays at maxItems, every
 * optional property), within a byte budget (the service's body limit), or
 * nested as deep as the JSON depth limit, or with as many keys as fit, in
 * the places the schema leaves free. Deterministic from the Random given.
 */
export type Shape = 'largest' | 'deepest' | 'many-keys';

export interface ValueContext {
  doc: OpenApiDocument;
  rng: Random;
  shape: Shape;
  /** The service's JSON depth limit: nesting reaches it, never past it. */
  maxDepth: number;
  /** Keys put in one free-form object by `many-keys`. */
  manyKeys: number;
  /** Set when a free-form place took the shape's nesting or keys. */
  usedFreeForm?: boolean;
}

/** Text that costs a parser and an error message the most per character, rotated by the seed. */
const UNITS = ['a', 'é', '𝔘', '"\\', '\u0000\n', '<&>', '%s${x}'];

export function oddText(rng: Random, length: number): string {
  const unit = rng.pick(UNITS);
  return unit.repeat(Math.max(1, Math.ceil(length / unit.length))).slice(0, Math.max(1, length));
}

const hex = (rng: Random, n: number) =>
  Array.from({ length: n }, () => '0123456789abcdef'[rng.int(0, 15)]).join('');

/** The type a schema describes (the first not null one of a list). */
function typeOf(s: Schema): string | undefined {
  if (Array.isArray(s.type)) return s.type.find((t) => t !== 'null');
  if (s.type) return s.type;
  if (s.properties || s.additionalProperties !== undefined) return 'object';
  if (s.items) return 'array';
  return undefined;
}

/** A string the schema's pattern accepts, for the patterns the document uses; undefined when none is known. */
function patterned(s: Schema, rng: Random, length: number): string | undefined {
  const p = s.pattern!;
  if (s.example !== undefined && typeof s.example === 'string') return s.example;
  if (/\[0-9a-f\]\{64\}/i.test(p)) return (p.includes('sha256:') ? 'sha256:' : '') + hex(rng, 64);
  if (/\[0-9a-fA-F\]\{4,64\}/.test(p)) return hex(rng, Math.min(64, Math.max(4, length)));
  if (p.startsWith('^[a-zA-Z0-9][a-zA-Z0-9'))
    return 'a'.repeat(Math.max(1, Math.min(length, s.maxLength ?? length)));
  if (p.startsWith('^(started|exited|changed)')) return 'started,exited,changed';
  if (p.startsWith('^(no_provenance'))
    return 'no_provenance,non_compliant,missing_attestation,late_evidence,self_approved';
  if (p.includes('x20-\\x7e')) return '~'.repeat(Math.min(128, length));
  return undefined;
}

export function stringValue(s: Schema, rng: Random, budget: number): string {
  if (s.format === 'date-time') return rng.pick(['9999-12-31T23:59:59.999Z', '1970-01-01T00:00:00Z']);
  const length = Math.max(s.minLength ?? 1, Math.min(s.maxLength ?? budget, budget));
  if (s.pattern) return patterned(s, rng, length) ?? oddText(rng, Math.min(length, 64));
  return oddText(rng, length);
}

function numberValue(s: Schema, rng: Random, integer: boolean): number {
  const high = s.maximum ?? (integer ? Number.MAX_SAFE_INTEGER : 1.7976931348623157e308);
  const low = s.minimum ?? (integer ? Number.MIN_SAFE_INTEGER : -1.7976931348623157e308);
  return rng.pick([high, low, high]);
}

/** Nesting of `levels` levels, objects and arrays by turns (what a free-form place allows). */
export function nested(levels: number, rng: Random): unknown {
  const arrays = rng.chance(0.5);
  let value: unknown = 'x';
  for (let i = 0; i < levels; i++) value = (i % 2 === 0) === arrays ? [value] : { a: value };
  return value;
}

/** An object of `count` short keys (what `many-keys` puts in a free-form place). */
export function manyKeys(count: number, value: unknown = 1): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) object[`k${i}`] = value;
  return object;
}

/** The size of a value as JSON text (for the byte budget). */
const sizeOf = (v: unknown) => JSON.stringify(v)?.length ?? 4;

/** A value of `schema` at depth `depth`, within `budget` bytes of JSON. */
export function valueOf(ctx: ValueContext, schema: Schema | undefined, budget: number, depth = 1): unknown {
  const s = resolved(ctx.doc, schema);
  const { rng } = ctx;
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return rng.pick(s.enum);
  const alternatives = s.oneOf ?? s.anyOf;
  if (alternatives?.length) return valueOf(ctx, rng.pick(alternatives), budget, depth);
  if (s.allOf?.length) {
    const merged: Schema = { type: 'object', properties: {}, required: [] };
    for (const part of s.allOf.map((p) => resolved(ctx.doc, p))) {
      Object.assign(merged.properties!, part.properties ?? {});
      merged.required!.push(...(part.required ?? []));
      if (part.additionalProperties !== undefined) merged.additionalProperties = part.additionalProperties;
    }
    return valueOf(ctx, merged, budget, depth);
  }
  switch (typeOf(s)) {
    case 'string':
      return stringValue(s, rng, ctx.shape === 'largest' ? budget : 16);
    case 'integer':
      return numberValue(s, rng, true);
    case 'number':
      return numberValue(s, rng, false);
    case 'boolean':
      return rng.chance(0.5);
    case 'array':
      return arrayOf(ctx, s, budget, depth);
    case 'object':
      return objectOf(ctx, s, budget, depth);
    default:
      return freeForm(ctx, budget, depth);
  }
}

/** A place the schema leaves free (any JSON): where depth and keys go. */
function freeForm(ctx: ValueContext, budget: number, depth: number): unknown {
  if (ctx.shape === 'deepest') {
    ctx.usedFreeForm = true;
    return nested(Math.max(1, ctx.maxDepth - depth), ctx.rng);
  }
  if (ctx.shape === 'many-keys' && !ctx.usedFreeForm) {
    // One place gets the keys (the parser's and the validator's cost is the same, the harness's less).
    ctx.usedFreeForm = true;
    return manyKeys(Math.min(ctx.manyKeys, Math.floor(budget / 8)));
  }
  return oddText(ctx.rng, Math.min(budget, 64 * 1024));
}

function arrayOf(ctx: ValueContext, s: Schema, budget: number, depth: number): unknown[] {
  const itemBudget = ctx.shape === 'largest' ? Math.min(budget, 4096) : budget;
  const item = valueOf(ctx, s.items, itemBudget, depth + 1);
  if (ctx.shape !== 'largest') return [item];
  const fits = Math.max(1, Math.floor(budget / (sizeOf(item) + 1)));
  const count = Math.max(s.minItems ?? 1, Math.min(s.maxItems ?? fits, fits));
  // The same item again and again (the service parses text, so it sees distinct objects): cheap to make.
  return new Array<unknown>(count).fill(item);
}

function objectOf(ctx: ValueContext, s: Schema, budget: number, depth: number): Record<string, unknown> {
  const properties = Object.entries(s.properties ?? {});
  const extra = s.additionalProperties;
  if (
    !properties.length &&
    extra !== false &&
    (extra === undefined || extra === true || !typeOf(resolved(ctx.doc, extra as Schema)))
  )
    return freeForm(ctx, budget, depth) as Record<string, unknown>;
  const object: Record<string, unknown> = {};
  const share = Math.max(64, Math.floor(budget / Math.max(1, properties.length + (extra ? 1 : 0))));
  for (const [name, property] of properties) object[name] = valueOf(ctx, property, share, depth + 1);
  if (extra && typeof extra === 'object') {
    // Keys of a map (a pod's digests, tags): as many as the shape and the budget allow.
    const value = valueOf(ctx, extra, 256, depth + 1);
    const room = Math.floor(share / (sizeOf(value) + 12));
    const keyed = ctx.shape === 'many-keys' && !ctx.usedFreeForm;
    const count = keyed ? Math.min(ctx.manyKeys, room) : Math.min(s.maxProperties ?? 64, room, 64);
    for (let i = 0; i < Math.max(1, count); i++) object[`k${i}`] = value;
    if (keyed) ctx.usedFreeForm = true;
  }
  return object;
}
