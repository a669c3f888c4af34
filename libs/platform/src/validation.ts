import { type ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { ApiError, FieldErrors, VALIDATION_FAILED } from './api-error';

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
 * Nest's validation, except that an empty query string is validated once per
 * class: most reads carry none, and their answer is then always the same (a
 * class whose empty query passes gets a fresh instance of it; one that fails
 * is validated every time, so it fails with the same errors).
 */
class DtoValidationPipe extends ValidationPipe {
  private readonly emptyQueryPasses = new WeakMap<object, boolean>();

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { type, metatype } = metadata;
    if (type !== 'query' || !metatype || !isEmptyObject(value)) return super.transform(value, metadata);
    const passes = this.emptyQueryPasses.get(metatype);
    if (passes) return plainToInstance(metatype, {});
    if (passes === false) return super.transform(value, metadata);
    try {
      const transformed = await super.transform(value, metadata);
      this.emptyQueryPasses.set(metatype, true);
      return transformed;
    } catch (error) {
      this.emptyQueryPasses.set(metatype, false);
      throw error;
    }
  }
}

const isEmptyObject = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;

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
