/**
 * Every answer an e2e test receives through supertest is checked against its
 * operation in the OpenAPI document the typed client was generated from
 * (npm test's compile step writes it): the status must be declared, and the
 * body must match the declared schema of its media type (ajv, JSON Schema
 * 2020-12 as OAS 3.1 has it). An answer that drifts from the document fails
 * the request, so the test that made it fails with the drift named.
 * Installed once per test process by importing this module (support/app does).
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Test } from 'supertest';
import { allowedMethods } from '#des/service';

type Responses = Record<string, { content?: Record<string, unknown> }>;
type Document = { paths: Record<string, Record<string, { responses?: Responses }>> };

const DOCUMENT_PATH = resolve(__dirname, '../../../clients/typescript/generated/openapi.json');
const document = JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')) as Document;
const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats(ajv);
ajv.addSchema(document, 'openapi');
const validators = new Map<string, ValidateFunction>();
const CHECKED_BYTES = 256 * 1024;

/** Each path as a matcher, the most specific first: the 405 check's own (`allowedMethods`). */
const templates = allowedMethods(document as never);

const pointer = (...parts: string[]) =>
  parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  text?: string;
}

/** What is wrong with the answer to `method url` by the document, or nothing. */
export function driftOf(method: string, url: string, answer: Answer): string | undefined {
  const path = decodeURIComponent(new URL(url, 'http://localhost').pathname);
  const template = templates.find((t) => t.pattern.test(path));
  const verb = method.toLowerCase();
  const operation = template && document.paths[template.path][verb];
  // Not the document's (a probe, an unknown path, a method it does not take): nothing to hold it to.
  if (!template || !operation) return undefined;
  const where = `${method} ${template.path} answered ${answer.status}`;
  const declared = operation.responses?.[String(answer.status)] ?? operation.responses?.default;
  if (!declared) return `${where}, a status its operation does not declare`;
  const type = (answer.headers['content-type'] ?? '').split(';')[0].trim();
  if (!declared.content)
    return type && answer.text ? `${where} with a ${type} body it declares none of` : undefined;
  if (method === 'HEAD' || (!type && !answer.text)) return undefined;
  if (!(type in declared.content)) return `${where} with ${type || 'no content type'}, not one it declares`;
  if (type !== 'application/json') return undefined;
  // Bounded, since the check runs on the event loop the app shares in-process (the noisy-neighbour
  // tests time that loop): a larger answer's operation is checked on its smaller answers.
  const size = answer.text?.length ?? (Buffer.isBuffer(answer.body) ? answer.body.length : 0);
  if (size > CHECKED_BYTES) return undefined;
  // A test may read any answer as bytes (`.parse(binary)`); an error's JSON is still checked.
  const body = Buffer.isBuffer(answer.body)
    ? (JSON.parse(answer.body.toString('utf8')) as unknown)
    : answer.body;
  const key = pointer(
    'paths',
    template.path,
    verb,
    'responses',
    String(answer.status),
    'content',
    type,
    'schema',
  );
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile({ $ref: `openapi#/${key}` });
    validators.set(key, validate);
  }
  if (validate(body)) return undefined;
  const problems = (validate.errors ?? [])
    .slice(0, 3)
    .map(
      (e) => `${e.instancePath || '(body)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
    );
  return `${where} with a body its schema refuses: ${problems.join('; ')}`;
}

type Assert = (
  this: Test,
  error: unknown,
  res: Answer | undefined,
  fn?: (e: unknown, r: unknown) => void,
) => void;
const proto = Test.prototype as unknown as {
  assert: Assert;
  method: string;
  url: string;
  _contractChecked?: boolean;
};
if (!proto._contractChecked) {
  proto._contractChecked = true;
  const assert = proto.assert;
  proto.assert = function (this: Test & { method: string; url: string }, error, res, fn) {
    const drift = res ? driftOf(this.method, this.url, res) : undefined;
    if (drift) {
      const failure = new Error(`the answer drifts from the OpenAPI document: ${drift}`);
      return fn?.call(this, failure, res);
    }
    return assert.call(this, error, res, fn);
  };
}
