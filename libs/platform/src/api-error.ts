import { HttpException } from '@nestjs/common';

export type FieldErrors = Record<string, string>;

/** An error answered with the spec's body: `{message, errors}`. */
export class ApiError extends HttpException {
  constructor(
    status: number,
    message: string,
    readonly errors: FieldErrors | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super({ message, errors }, status);
  }
}

/** Bounds of an error body: messages often quote a caller's input (a key, a line, a value), which has no bound of its own. */
export const ERROR_BODY_LIMITS = {
  /** Characters of the message and of each field error kept. */
  textChars: 1024,
  /** Characters of a field's name (a path may be made of the caller's keys). */
  fieldChars: 200,
  /** Field errors listed; the rest are counted under `…`. */
  fields: 50,
};

/** The text cut to `max` characters, visibly: `…` and how long it was. */
export function boundedText(text: string, max = ERROR_BODY_LIMITS.textChars): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

function boundedErrors(errors: FieldErrors): FieldErrors {
  const bounded: FieldErrors = {};
  let listed = 0;
  let left = 0;
  for (const field in errors) {
    if (listed === ERROR_BODY_LIMITS.fields) {
      left++;
      continue;
    }
    const value = errors[field];
    bounded[boundedText(field, ERROR_BODY_LIMITS.fieldChars)] =
      typeof value === 'string' ? boundedText(value) : value;
    listed++;
  }
  if (left) bounded['…'] = `and ${left} more`;
  return bounded;
}

/**
 * The error body as it is sent: `errors` only when there are field errors
 * (the spec makes it optional; the Kosli CLI prints any `errors` key it gets,
 * so `"errors": null` read as "…: <nil>" at the end of every message). Every
 * string is bounded (ERROR_BODY_LIMITS), so no error echoes unbounded input.
 */
export function errorBody(
  message: string,
  errors: FieldErrors | null = null,
): { message: string; errors?: FieldErrors } {
  const bounded = boundedText(String(message));
  return errors ? { message: bounded, errors: boundedErrors(errors) } : { message: bounded };
}

export const VALIDATION_FAILED = 'Input payload validation failed';
export const DATABASE_UNAVAILABLE = 'Database temporarily unavailable; retry the request.';
export const RETRY_AFTER_SECONDS = 5;
