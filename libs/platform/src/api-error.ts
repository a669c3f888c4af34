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

/**
 * The error body as it is sent: `errors` only when there are field errors
 * (the spec makes it optional; the Kosli CLI prints any `errors` key it gets,
 * so `"errors": null` read as "…: <nil>" at the end of every message).
 */
export function errorBody(
  message: string,
  errors: FieldErrors | null = null,
): { message: string; errors?: FieldErrors } {
  return errors ? { message, errors } : { message };
}

export const VALIDATION_FAILED = 'Input payload validation failed';
export const DATABASE_UNAVAILABLE = 'Database temporarily unavailable; retry the request.';
export const RETRY_AFTER_SECONDS = 5;
