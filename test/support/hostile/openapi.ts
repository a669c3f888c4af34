/** The parts of an OpenAPI 3.1 document the harness reads. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  propertyNames?: Schema;
  required?: string[];
  items?: Schema;
  maxItems?: number;
  minItems?: number;
  maxLength?: number;
  minLength?: number;
  maxProperties?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  format?: string;
  enum?: unknown[];
  const?: unknown;
  example?: unknown;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}

export interface MediaType {
  schema?: Schema;
}

export interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
  security?: unknown[];
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

export interface DocumentRoute {
  /** `METHOD /path`, as the harness names it in its lines and failures. */
  name: string;
  method: string;
  path: string;
  operation: Operation;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** Every operation of the document, in the document's order (a new route is in the next run). */
export function documentRoutes(doc: OpenApiDocument): DocumentRoute[] {
  const routes: DocumentRoute[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation)
        routes.push({
          name: `${method.toUpperCase()} ${path}`,
          method: method.toUpperCase(),
          path,
          operation,
        });
    }
  }
  return routes;
}

/** A schema with its `$ref` followed (local references only; the document has no others). */
export function resolved(doc: OpenApiDocument, schema: Schema | undefined, seen = 0): Schema {
  if (!schema) return {};
  if (schema.$ref && seen < 32) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    return resolved(doc, doc.components?.schemas?.[name], seen + 1);
  }
  return schema;
}
