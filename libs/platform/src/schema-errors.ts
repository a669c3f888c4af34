import type { ErrorObject } from 'ajv';

/**
 * ajv errors → the API's `errors`: field path (`artifacts[3].podName`, under
 * `root` if given; a bad property name at the property) → message. `message` may word some errors itself;
 * otherwise an unknown property "is not allowed" and the rest keep ajv's words.
 */
export function schemaFieldErrors(
  errors: ErrorObject[] | null | undefined,
  options: { root?: string; message?: (e: ErrorObject) => string | undefined } = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of errors ?? []) {
    const path = e.instancePath
      .split('/')
      .slice(1)
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce(
        (acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part),
        options.root ?? '',
      );
    const p = e.params as { missingProperty?: string; additionalProperty?: string; propertyName?: string };
    // A bad property name (`propertyNames`) is reported at the property itself.
    const field = p.missingProperty ?? p.additionalProperty ?? e.propertyName ?? p.propertyName;
    const key = field ? (path ? `${path}.${field}` : field) : path || 'body';
    out[key] ??=
      options.message?.(e) ?? (p.additionalProperty ? 'is not allowed' : (e.message ?? 'is invalid'));
  }
  return out;
}
