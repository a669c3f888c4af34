import type { OpenAPIObject } from '@nestjs/swagger';
import type { MultipartForm, PathVariants } from '#des/platform';

type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: { in: string; name: string }[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
  security?: unknown[];
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

/** Every operation of the document, with its method. */
function* operationsOf(document: OpenAPIObject): Generator<[(typeof METHODS)[number], Operation]> {
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation = (item as Record<string, Operation | undefined>)[method];
      if (operation) yield [method, operation];
    }
  }
}

/** The body every error answers with (the spec's). */
export const ERROR_BODY_SCHEMA = {
  type: 'object',
  required: ['message'],
  properties: {
    message: { type: 'string' },
    errors: {
      description: 'Field → what is wrong with it; absent when the message says it all',
      type: ['object', 'null'],
    },
  },
};

const errorResponse = (description: string, headers?: Record<string, unknown>) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
});

const RESPONSES = {
  400: errorResponse('Invalid input: `errors` names each field and what is wrong with it'),
  401: errorResponse('Invalid or missing API key', {
    'WWW-Authenticate': { schema: { type: 'string' }, description: 'Bearer and Basic challenges' },
  }),
  403: errorResponse("The key's organization is not the path's, or its privilege is too low"),
  404: errorResponse('Not found'),
  408: errorResponse(
    "The request's headers or body did not arrive within the server's timeouts (docs/limits.md)",
  ),
  409: errorResponse('Changed concurrently, or in conflict with what exists'),
  413: errorResponse('Request body over its limit'),
  415: errorResponse('A body of a content type the operation does not take'),
  422: errorResponse(
    'Well-formed, but not acceptable now: the Idempotency-Key was used for another request, or the resource’s state cannot take it',
  ),
  429: errorResponse("Over one of the organization's rate or concurrency limits (docs/limits.md)", {
    'Retry-After': { schema: { type: 'integer' }, description: 'Seconds' },
  }),
  431: errorResponse('The request line (its query) or headers are over the server’s limit'),
  500: errorResponse('Internal server error: the details are in the log under the request id (X-Request-Id)'),
  503: errorResponse('An engine (event store, read store or job queue) is unreachable; retry', {
    'Retry-After': { schema: { type: 'integer' }, description: 'Seconds' },
  }),
  507: errorResponse("The organization's storage quota is used up: an operator raises it (docs/limits.md)"),
};

/**
 * Declares what the generated document leaves out, the same way for every
 * operation: the error body, and each error status the API's conventions
 * can answer with (validation 400; 401 and 403 from the key check; 404 for
 * a resource named that does not exist; 409, 422, 429 and 507 for a write;
 * 413 and 415 where there is a body; 408 for a request too slow to arrive
 * and 431 for an oversized request line; 500
 * and 503 for an internal failure or an unreachable engine).
 */
export function withErrorResponses(document: OpenAPIObject): OpenAPIObject {
  document.components ??= {};
  document.components.schemas ??= {};
  document.components.schemas.ErrorBody = ERROR_BODY_SCHEMA as never;
  for (const [method, operation] of operationsOf(document)) {
    const add = (status: keyof typeof RESPONSES) => {
      operation.responses[status] ??= RESPONSES[status];
    };
    add(400);
    // Every operation of the API asks for a key (the probes are not in the document).
    if (!operation.security?.length) operation.security = [{ bearer: [] }, { basic: [] }];
    add(401);
    add(403);
    // A resource named by the path, the body (an evaluation's trails) or the query (env-diff's environments) may not exist.
    add(404);
    // Node's parser refuses a request line or headers over its limit, or not arrived in time, before any route (http-app's clientError).
    add(408);
    add(431);
    if (method !== 'get') {
      add(409);
      add(422);
      // Writes count against the organization's write rate and quotas.
      add(429);
      add(507);
    }
    if (operation.requestBody) {
      add(413);
      add(415);
    }
    add(500);
    add(503);
  }
  return document;
}

/** OAS 3.1 has no `nullable`: a nullable schema's type gains `null` (`type: ['number', 'null']`). */
export function withOas31Nullability(document: OpenAPIObject): OpenAPIObject {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const schema = node as Record<string, unknown>;
    if (schema.nullable === true) {
      delete schema.nullable;
      const refs = schema.allOf as { $ref?: string }[] | undefined;
      if (refs?.length === 1 && refs[0].$ref) {
        // A nullable nested class (`allOf: [{$ref}]`): the class, or null.
        schema.oneOf = [{ $ref: refs[0].$ref }, { type: 'null' }];
        delete schema.allOf;
        delete schema.type;
      } else if (typeof schema.type === 'string') schema.type = [schema.type, 'null'];
      else if (Array.isArray(schema.type) && !schema.type.includes('null'))
        schema.type = [...schema.type, 'null'];
      else if (schema.$ref) {
        schema.oneOf = [{ $ref: schema.$ref }, { type: 'null' }];
        delete schema.$ref;
      }
    }
    Object.values(schema).forEach(visit);
  };
  visit(document.components);
  visit(document.paths);
  return document;
}

/** Says, in each operation's description, who may call it: the privilege its key must hold. */
export function withPrivileges(
  document: OpenAPIObject,
  privilegeOf: (operationId: string) => string | undefined,
): OpenAPIObject {
  for (const [, operation] of operationsOf(document)) {
    const privilege = operation.operationId ? privilegeOf(operation.operationId) : undefined;
    if (!privilege) continue;
    const who = `Who may call it: an API key of the organization in the path whose service account holds the \`${privilege}\` privilege or a higher one.`;
    operation.description = operation.description ? `${operation.description}\n\n${who}` : who;
  }
  return document;
}

/**
 * Every path of the document as a matcher, with its template and the methods
 * it declares; the most specific first (more literal segments before
 * parameters, left to right).
 */
export function allowedMethods(
  document: OpenAPIObject,
): { path: string; pattern: RegExp; allow: string[] }[] {
  const specificity = (path: string) => path.split('/').map((segment) => (segment.startsWith('{') ? 1 : 0));
  const paths = Object.entries(document.paths).sort(([a], [b]) => {
    const [x, y] = [specificity(a), specificity(b)];
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
    return x.length - y.length;
  });
  return paths.map(([path, item]) => {
    const methods = METHODS.filter((m) => (item as Record<string, unknown>)[m]).map((m) => m.toUpperCase());
    if (methods.includes('GET') && !methods.includes('HEAD')) methods.push('HEAD');
    const source = path
      .split(/\{[^}]+\}/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]+');
    return { path, pattern: new RegExp(`^${source}/?$`), allow: methods };
  });
}

type Parameter = { in: string; name: string; schema?: Schema; required?: boolean };
type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; required?: string[] };

/** The keywords a class-validator rule turns into (what the validation pipe enforces). */
const CONSTRAINTS = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'enum',
  'format',
];

/** The keywords of a rule between a class's fields. */
const CROSS_FIELD = ['if', 'then', 'else', 'not', 'dependentRequired', 'dependentSchemas'];

/** A property's schema with the validator's constraints added (the document's own text kept). */
function constrained(documented: Schema, validated: Schema | undefined): Schema {
  if (!validated) return documented;
  const merged: Schema = { ...documented };
  for (const key of CONSTRAINTS) if (validated[key] !== undefined) merged[key] = validated[key];
  // An integer rule narrows a documented `number`; otherwise the validator's type fills only a gap.
  const untyped = merged.type === undefined && merged.$ref === undefined;
  if (validated.type !== undefined && (validated.type === 'integer' || untyped)) merged.type = validated.type;
  if (validated.oneOf && !documented.format && !documented.$ref) merged.oneOf = validated.oneOf;
  const items = validated.items as Schema | undefined;
  if (items && !items.$ref && documented.items && !(documented.items as Schema).$ref)
    merged.items = constrained(documented.items as Schema, items);
  return merged;
}

/** Null is taken where a property may be left out (class-validator's @IsOptional lets both through). */
function nullable(schema: Schema): Schema {
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  if (Array.isArray(schema.type))
    return schema.type.includes('null') ? schema : { ...schema, type: [...schema.type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/**
 * The document made to say what the validation pipe enforces, from the same
 * class-validator rules (`validators`: each DTO class's JSON schema, by class
 * name): each request body's constraints, required fields, nulls and
 * `additionalProperties: false` (unknown fields are refused); each query
 * parameter's (`queryClassOf`: an operation's query DTO). (That `at` is not
 * in the future depends on the clock, so no schema states it.)
 */
export function withValidatorRules(
  document: OpenAPIObject,
  validators: Record<string, Schema>,
  queryClassOf: (operationId: string) => string | undefined,
): OpenAPIObject {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  for (const [name, schema] of Object.entries(schemas)) {
    const validated = validators[name];
    if (!validated || !schema.properties) continue;
    const required = validated.required ?? [];
    for (const [property, documented] of Object.entries(schema.properties)) {
      const exact = constrained(documented, validated.properties?.[property]);
      schema.properties[property] = required.includes(property) ? exact : nullable(exact);
    }
    if (required.length) schema.required = required;
    else delete schema.required;
    schema.additionalProperties = false;
    // Rules between fields, stated on the class (class-validator-jsonschema's @JSONSchema).
    for (const keyword of CROSS_FIELD)
      if (validated[keyword] !== undefined) schema[keyword] = validated[keyword];
  }
  for (const [, operation] of operationsOf(document)) {
    const body = operation.requestBody as
      { required?: boolean; content?: Record<string, { schema?: { $ref?: string } }> } | undefined;
    const ref = body?.content?.['application/json']?.schema?.$ref;
    const bodySchema = ref ? schemas[ref.split('/').pop()!] : undefined;
    // A body of optional fields only may be left out, or be JSON `null` (both read as `{}`).
    if (body && bodySchema && !bodySchema.required?.length) {
      body.required = false;
      body.content!['application/json'].schema = { anyOf: [{ $ref: ref }, { type: 'null' }] } as never;
    }
    const queryClass = operation.operationId ? queryClassOf(operation.operationId) : undefined;
    const query = queryClass ? validators[queryClass] : undefined;
    if (!query) continue;
    for (const parameter of (operation.parameters ?? []) as Parameter[]) {
      if (parameter.in !== 'query') continue;
      parameter.schema = constrained(parameter.schema ?? {}, query.properties?.[parameter.name]);
      parameter.required = (query.required ?? []).includes(parameter.name);
    }
  }
  return document;
}

type Content = Record<string, { schema?: Schema; encoding?: Record<string, unknown>; example?: unknown }>;

/** A file part: its bytes, as the document types an upload. */
const FILE_PART = { type: 'string', format: 'binary' };

/** The schema's object itself, where a body of optional fields only is declared `anyOf: [it, null]`. */
const withoutNull = (schema: Schema): Schema => {
  const options = schema.anyOf as Schema[] | undefined;
  const kept = options?.filter((option) => option.type !== 'null');
  return kept?.length === 1 ? kept[0] : schema;
};

/**
 * Each route that also takes multipart (`AcceptsDataJson`) declares that
 * form beside its JSON body: the part `data_json` holding the same JSON
 * (or the form's own class, which a mapper turns into it) as
 * `application/json`, and the files it reads.
 */
export function withMultipartForms(
  document: OpenAPIObject,
  formOf: (operationId: string) => MultipartForm | undefined,
): OpenAPIObject {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  for (const [, operation] of operationsOf(document)) {
    const form = operation.operationId ? formOf(operation.operationId) : undefined;
    if (!form) continue;
    const body = operation.requestBody as { content?: Content } | undefined;
    const json = body?.content?.['application/json']?.schema;
    if (form.dataJson && !schemas[form.dataJson.name])
      throw new Error(`${operation.operationId}: ${form.dataJson.name} is not among the document's schemas`);
    const dataJson = form.dataJson ? { $ref: `#/components/schemas/${form.dataJson.name}` } : json;
    if (!body?.content || !dataJson) throw new Error(`${operation.operationId}: data_json has no schema`);
    const files = Object.entries(form.files ?? {});
    body.content['multipart/form-data'] = {
      schema: {
        type: 'object',
        // Other text parts are ignored, within the form's limits (10 text parts; names a header can carry).
        additionalProperties: { type: 'string', description: 'Ignored' },
        propertyNames: { pattern: '^[A-Za-z0-9_.-]+$' },
        maxProperties: 10 + files.length,
        required: ['data_json', ...files.filter(([, file]) => file.required).map(([name]) => name)],
        properties: {
          data_json: withoutNull(dataJson),
          ...Object.fromEntries(
            files.map(([name, file]) => [
              name,
              file.many
                ? { type: 'array', maxItems: 10, items: FILE_PART, description: file.description }
                : { ...FILE_PART, description: file.description },
            ]),
          ),
        },
      },
      encoding: { data_json: { contentType: 'application/json' } },
    };
  }
  return document;
}

/**
 * An operation whose path parameter picks the body's shape becomes one
 * operation per value (`ApiPathVariants`): its path with the value in
 * place, its own id and summary, and the value's body schema, in JSON and
 * in the multipart form's `data_json`.
 */
export function withPathVariants(
  document: OpenAPIObject,
  variantsOf: (operationId: string) => PathVariants | undefined,
): OpenAPIObject {
  const schemas = (document.components!.schemas ??= {}) as Record<string, Schema>;
  for (const [path, item] of Object.entries(document.paths)) {
    const operations = item as Record<string, Operation | undefined>;
    for (const method of METHODS) {
      const operation = operations[method];
      const variants = operation?.operationId ? variantsOf(operation.operationId) : undefined;
      if (!operation || !variants) continue;
      delete operations[method];
      for (const [value, variant] of Object.entries(variants.variants)) {
        const copy = structuredClone(operation);
        copy.operationId = variant.operationId;
        copy.summary = variant.summary;
        copy.parameters = copy.parameters?.filter((p) => !(p.in === 'path' && p.name === variants.param));
        schemas[variant.schemaName] = variant.schema;
        const ref = { $ref: `#/components/schemas/${variant.schemaName}` };
        const content = (copy.requestBody as { content?: Content } | undefined)?.content ?? {};
        if (content['application/json'])
          content['application/json'] = {
            schema: ref,
            ...(variant.example === undefined ? {} : { example: variant.example }),
          };
        const form = content['multipart/form-data']?.schema?.properties;
        if (form) form.data_json = ref;
        const concrete = path.replace(`{${variants.param}}`, value);
        document.paths[concrete] = { ...document.paths[concrete], [method]: copy };
      }
    }
    if (!METHODS.some((method) => operations[method])) delete document.paths[path];
  }
  return document;
}
