import { ValidationError, ValidationPipe } from '@nestjs/common';
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

/** DTO validation answering 400 with the spec's message; unknown properties are refused. */
export function validationPipe(message = VALIDATION_FAILED): ValidationPipe {
  return new ValidationPipe({
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
