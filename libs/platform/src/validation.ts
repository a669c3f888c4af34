import { type ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiError, FieldErrors, VALIDATION_FAILED } from './api-error';
import { type DtoClass, fieldPath, structuredExcess } from './free-form';
import {
  MAX_STRUCTURED_OBJECT_KEYS,
  MAX_STRUCTURED_VALUES,
  TOO_MANY_STRUCTURED,
  TOO_WIDE_STRUCTURED,
} from './json-depth';

/** class-validator errors → `{"context.trails[0].flow": "…"}`. */
export function fieldErrors(errors: ValidationError[], parent = ''): FieldErrors {
  const out: FieldErrors = {};
  for (const error of errors) {
    const key = /^\d+$/.test(error.property)
      ? `${parent}[${error.property}]`
      : parent
        ? `${parent}.${error.property}`
        : error.property;
    if (error.constraints) out[key] = Object.values(error.constraints).join('; ');
    if (error.children?.length) Object.assign(out, fieldErrors(error.children, key));
  }
  return out;
}

/**
 * Nest's validation, except that a query string is validated once per class
 * and text while it passes: most reads carry none or the same few (a page
 * size), and class-validator would answer them the same each time. Only
 * passes are kept (a validator may pass later what it refuses now: an
 * instant no longer in the future; never the reverse), each answered with a
 * fresh instance; a query that fails is validated every time.
 */
class DtoValidationPipe extends ValidationPipe {
  private readonly passedQueries = new WeakMap<object, Map<string, Record<string, unknown>>>();

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { type, metatype } = metadata;
    if (type === 'body' && isDto(metatype)) refuseCostlyStructure(value, metatype);
    const key = type === 'query' && metatype ? queryKey(value) : undefined;
    if (key === undefined) return super.transform(value, metadata);
    let passed = this.passedQueries.get(metatype!);
    const known = passed?.get(key);
    if (known) return Object.assign(new (metatype as new () => object)(), copyOf(known));
    const transformed = (await super.transform(value, metadata)) as Record<string, unknown>;
    if (!passed) this.passedQueries.set(metatype!, (passed = new Map()));
    if (passed.size >= MAX_QUERIES_KEPT) passed.clear();
    if (isFlat(transformed)) passed.set(key, copyOf(transformed));
    return transformed;
  }
}

const MAX_QUERIES_KEPT = 512;

/** A body class the pipe transforms and validates (not a bare `unknown`, object or value). */
const isDto = (metatype: unknown): metatype is DtoClass =>
  typeof metatype === 'function' && ![Object, Array, String, Number, Boolean].includes(metatype as never);

/**
 * What class-transformer would copy (all but free-form fields, `@FreeForm()`)
 * is refused past its limits before it runs: its copy of an object is
 * quadratic in the object's keys, and costs about 2 µs a value. Free-form
 * fields are handed over as sent, so they may be as wide as the body parser
 * lets through.
 */
function refuseCostlyStructure(value: unknown, dto: DtoClass): void {
  const found = structuredExcess(value, dto, {
    maxKeys: MAX_STRUCTURED_OBJECT_KEYS,
    maxValues: MAX_STRUCTURED_VALUES,
  });
  if (found?.excess === 'keys')
    throw new ApiError(400, VALIDATION_FAILED, { [fieldPath(found.path)]: TOO_WIDE_STRUCTURED });
  if (found) throw new ApiError(400, VALIDATION_FAILED, { body: TOO_MANY_STRUCTURED });
}

/** The query's text as a key: only for a query of plain strings (or lists of them), as Express parses one. */
function queryKey(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  for (const v of Object.values(value)) {
    if (typeof v !== 'string' && !(Array.isArray(v) && v.every((item) => typeof item === 'string')))
      return undefined;
  }
  return JSON.stringify(value);
}

/** A transformed query's fields: values and lists of values only (nothing shared could be changed in place). */
const isFlat = (instance: Record<string, unknown>) =>
  Object.values(instance).every(
    (v) => v === null || typeof v !== 'object' || (Array.isArray(v) && v.every((i) => typeof i !== 'object')),
  );

function copyOf(fields: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    copy[key] = Array.isArray(value) ? [...value] : value;
  }
  return copy;
}

/** DTO validation answering 400 with the spec's message; unknown properties are refused. */
export function validationPipe(message = VALIDATION_FAILED): ValidationPipe {
  return new DtoValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    exceptionFactory: (errors) => new ApiError(400, message, fieldErrors(errors)),
  });
}

/** What a resource name looks like (flows, trails, environments, policies, actions, …): the spec's name pattern. */
export const NAME_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9\-_.~]*$/;
export const NAME_PATTERN_MESSAGE =
  'must start with a letter or digit and hold only letters, digits, "-", "_", "." and "~"';
