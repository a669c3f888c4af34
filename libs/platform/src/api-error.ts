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

export const VALIDATION_FAILED = 'Input payload validation failed';
export const DATABASE_UNAVAILABLE = 'Database temporarily unavailable; retry the request.';
export const RETRY_AFTER_SECONDS = 5;
