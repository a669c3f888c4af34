import { DocumentRoute, OpenApiDocument, Parameter, resolved, Schema } from './openapi';
import { manyKeys, nested, oddText, Shape, stringValue, ValueContext, valueOf } from './schema-values';
import { random, Random, subSeed } from './seed';

/**
 * The hostile inputs of one operation, derived from its schemas. Every
 * route gets every kind that applies to it in every run (the base round);
 * the seed chooses the details (text, sizes, alternatives, Accept), so
 * each run's inputs differ while each kind is always tried.
 */
export type CaseKind = 'largest' | 'deepest' | 'many-keys' | 'odd-path' | 'stranger' | 'files';

export const KINDS: readonly CaseKind[] = [
  'largest',
  'deepest',
  'many-keys',
  'odd-path',
  'stranger',
  'files',
];

export interface MultipartBody {
  kind: 'multipart';
  fields: { name: string; value: string; contentType?: string }[];
  files: { name: string; filename: string; bytes: number }[];
}
export type Body = { kind: 'json'; text: string } | MultipartBody;

export interface HostileCase {
  /** `<route> <kind>#<round>`: with the seed, enough to make the same input again. */
  label: string;
  kind: CaseKind;
  method: string;
  /** Path and query. */
  url: string;
  /** The attacker's key, or none (a stranger). */
  withKey: boolean;
  accept?: string;
  body?: Body;
  /** The body's size in bytes (files included). */
  bytes: number;
}

export interface CaseLimits {
  /** The JSON body limit (bytes). */
  jsonBytes: number;
  /** One file's limit and one request's files' limit (bytes). */
  fileBytes: number;
  requestFileBytes: number;
  maxDepth: number;
  manyKeys: number;
}

/** The names of the attacker's own records, so reads hit its large data. */
export type Targets = Record<string, string>;

const JSON_TYPES = ['application/json'];

function bodyMedia(route: DocumentRoute): { type: string; schema?: Schema } | undefined {
  const content = route.operation.requestBody?.content;
  if (!content) return undefined;
  for (const type of [...JSON_TYPES, 'multipart/form-data'])
    if (content[type]) return { type, schema: content[type].schema };
  const [type] = Object.keys(content);
  return type ? { type, schema: content[type].schema } : undefined;
}

/** The kinds that apply to a route: body shapes only with a body, files only with a multipart one. */
export function kindsOf(route: DocumentRoute): CaseKind[] {
  const content = route.operation.requestBody?.content ?? {};
  const hasBody = Object.keys(content).length > 0;
  return KINDS.filter((k) => {
    if (k === 'deepest' || k === 'many-keys')
      return hasBody && Object.keys(content).some((t) => t.includes('json') || t.includes('multipart'));
    if (k === 'files') return Boolean(content['multipart/form-data']);
    return true;
  });
}

function paramValue(
  p: Parameter,
  targets: Targets,
  rng: Random,
  odd: boolean,
  doc: OpenApiDocument,
): string | undefined {
  const s = resolved(doc, p.schema);
  if (p.in === 'path') {
    if (odd) return oddPathText(rng);
    if (targets[p.name] !== undefined) return targets[p.name];
    if (s.enum?.length) return String(rng.pick(s.enum));
    return stringValue(s, rng, 64);
  }
  // Query: at its extremes; odd text where it is free.
  if (s.type === 'array') {
    const item = resolved(doc, s.items);
    // Many values, the whole within the request line's limit once encoded (else only the 431 is tried).
    const one = item.enum?.length
      ? String(rng.pick(item.enum))
      : stringValue(item, rng, Math.min(item.maxLength ?? 64, 64));
    const many = Math.max(1, Math.floor((odd ? 12_000 : 6_000) / encodeURIComponent(`${one},`).length));
    return Array.from({ length: many }, () => one).join(',');
  }
  if (s.type === 'integer' || s.type === 'number') {
    if (odd) return rng.pick(['99999999999999999999999', '-1', '1e309', 'NaN', '0x10']);
    // The first page, as large as allowed: the most of the tenant's data in one answer.
    if (p.name === 'page') return String(s.minimum ?? 1);
    return String(
      rng.pick([s.maximum ?? Number.MAX_SAFE_INTEGER, s.maximum ?? Number.MAX_SAFE_INTEGER, s.minimum ?? 0]),
    );
  }
  if (s.enum?.length) return odd ? oddText(rng, 300) : String(rng.pick(s.enum));
  if (odd) return oddText(rng, Math.min(2048, (s.maxLength ?? 2048) + 1));
  if (typeof s.example === 'string' && /^\d{4}-\d\d-\d\dT/.test(s.example)) {
    // A time range as wide as it goes (the earliest start the pattern takes); instants default to now.
    return /from|start/.test(p.name) ? '1971-01-01T00:00:00Z' : undefined;
  }
  if (s.pattern && s.example === undefined && !p.required) return undefined;
  // A free filter: at its largest on some rounds, absent (everything matches) on others.
  if (!p.required && rng.chance(0.5)) return undefined;
  return stringValue(s, rng, Math.min(s.maxLength ?? 2048, 2048));
}

/** A path parameter at odd length and characters: traversal, encoded slashes, NUL, wide characters. */
function oddPathText(rng: Random): string {
  const unit = rng.pick(['../', '%2F', '\u0000', '𝔘', ' ', '%', '\\', '\'"']);
  // Long, but within the request line's limit once encoded (a 431 would test only the limit).
  const units = Math.floor(rng.pick([255, 1024, 4096]) / Math.max(3, encodeURIComponent(unit).length));
  return unit.repeat(Math.max(1, units));
}

/** Operations that would rename, archive, join or delete the records the other routes read: they get spares. */
const CONSUMING = /\/(rename|archive|unarchive|join)$/;
export const SPARE = 'spare';

function urlOf(
  route: DocumentRoute,
  doc: OpenApiDocument,
  given: Targets,
  rng: Random,
  odd: boolean,
): string {
  const params = route.operation.parameters ?? [];
  const consuming = CONSUMING.test(route.path) || route.method === 'DELETE';
  const targets = consuming
    ? { ...given, flow: SPARE, env: SPARE, trail: SPARE, name: SPARE, identifier: SPARE }
    : given;
  let path = route.path;
  for (const p of params.filter((q) => q.in === 'path')) {
    path = path.replace(
      `{${p.name}}`,
      encodeURIComponent(paramValue(p, targets, rng, odd && p.name !== 'org', doc)!),
    );
  }
  const query = new URLSearchParams();
  for (const p of params.filter((q) => q.in === 'query')) {
    const value = paramValue(p, targets, rng, odd, doc);
    if (value !== undefined) query.set(p.name, value);
  }
  // The request line within Node's 16 kB of headers: longest parameters dropped first until it fits.
  const LINE = 14 * 1024;
  while (query.toString().length + path.length > LINE) {
    const [longest] = [...query.entries()].sort((x, y) => y[1].length - x[1].length);
    if (!longest) break;
    query.delete(longest[0]);
  }
  const q = query.toString();
  return q ? `${path}?${q}` : path;
}

function jsonBody(
  doc: OpenApiDocument,
  schema: Schema | undefined,
  shape: Shape,
  rng: Random,
  limits: CaseLimits,
): string {
  const ctx: ValueContext = { doc, rng, shape, maxDepth: limits.maxDepth, manyKeys: limits.manyKeys };
  let value = valueOf(ctx, schema, limits.jsonBytes - 1024);
  // No free place in the schema: the shape goes where the schema forbids it (a refusal is then the answer).
  if (shape === 'deepest' && !ctx.usedFreeForm) value = nested(limits.maxDepth, rng);
  // Beside closed properties a tenth as many: each unknown key is refused by name, so this is
  // already an error of hundreds of kB (a validator that echoes each key stalls on it).
  if (shape === 'many-keys' && !ctx.usedFreeForm)
    value = {
      ...(value && typeof value === 'object' ? value : {}),
      ...manyKeys(Math.floor(limits.manyKeys / 10)),
    };
  let text = JSON.stringify(value);
  // The budget is an estimate: a body past the limit is cut back to the limit's size of the same shape.
  if (text.length > limits.jsonBytes && shape === 'largest')
    text = JSON.stringify(valueOf({ ...ctx }, schema, limits.jsonBytes / 4));
  return text;
}

function multipartBody(
  doc: OpenApiDocument,
  schema: Schema | undefined,
  shape: Shape,
  rng: Random,
  limits: CaseLimits,
  files: boolean,
): MultipartBody {
  const s = resolved(doc, schema);
  const fields: MultipartBody['fields'] = [];
  const parts: MultipartBody['files'] = [];
  let fileBytes = 0;
  for (const [name, property] of Object.entries(s.properties ?? {})) {
    const p = resolved(doc, property);
    const binary = p.format === 'binary' || resolved(doc, p.items).format === 'binary';
    if (binary) {
      if (!files) continue;
      const count = p.type === 'array' ? Math.min(p.maxItems ?? 3, 3) : 1;
      for (let i = 0; i < count; i++) {
        // At the file limit, or one byte past it; the request's limit stops the rest.
        const bytes = limits.fileBytes + (rng.chance(0.3) ? 1 : 0);
        if (fileBytes + bytes > limits.requestFileBytes + limits.fileBytes) break;
        parts.push({ name, filename: `${oddText(rng, 200).replace(/["\r\n\\]/g, '_')}.bin`, bytes });
        fileBytes += bytes;
      }
    } else if (p.type === 'object' || p.$ref || p.properties) {
      const ctx = { doc, rng, shape, maxDepth: limits.maxDepth, manyKeys: limits.manyKeys };
      fields.push({
        name,
        value: JSON.stringify(valueOf(ctx, p, files ? 64 * 1024 : limits.jsonBytes / 2)),
        contentType: 'application/json',
      });
    } else {
      fields.push({ name, value: stringValue(p, rng, files ? 1024 : 1024 * 1024) });
    }
  }
  return { kind: 'multipart', fields, files: parts };
}

/** The case of `kind` for `route` in round `round` of the run seeded `seed`. */
export function hostileCase(
  doc: OpenApiDocument,
  route: DocumentRoute,
  kind: CaseKind,
  round: number,
  seed: number,
  targets: Targets,
  limits: CaseLimits,
): HostileCase {
  const rng = random(subSeed(seed, route.name, kind, round));
  const media = bodyMedia(route);
  const shape: Shape = kind === 'deepest' || kind === 'many-keys' ? kind : 'largest';
  let body: Body | undefined;
  if (kind === 'files') {
    body = multipartBody(
      doc,
      route.operation.requestBody!.content['multipart/form-data'].schema,
      'largest',
      rng,
      limits,
      true,
    );
  } else if (media?.type === 'multipart/form-data') {
    body = multipartBody(doc, media.schema, shape, rng, limits, false);
  } else if (media) {
    body = { kind: 'json', text: jsonBody(doc, media.schema, shape, rng, limits) };
  }
  const produces = Object.keys(route.operation.responses?.['200']?.content ?? {});
  const bytes =
    body?.kind === 'json'
      ? Buffer.byteLength(body.text)
      : body
        ? body.fields.reduce((n, f) => n + Buffer.byteLength(f.value), 0) +
          body.files.reduce((n, f) => n + f.bytes, 0)
        : 0;
  return {
    label: `${route.name} ${kind}#${round}`,
    kind,
    method: route.method,
    url: urlOf(route, doc, targets, rng, kind === 'odd-path'),
    withKey: kind !== 'stranger',
    accept: produces.length > 1 ? rng.pick(produces) : undefined,
    body,
    bytes,
  };
}
