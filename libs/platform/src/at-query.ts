import { ApiPropertyOptional } from '@nestjs/swagger';
import { applyDecorators } from '@nestjs/common';
import { ApiError, VALIDATION_FAILED } from './api-error';
import { Transform } from 'class-transformer';
import { INSTANT_FORMS, INSTANT_PATTERN, parseInstant } from '#des/kernel';
import {
  IsNumber,
  IsOptional,
  registerDecorator,
  type ValidationArguments,
  type ValidationOptions,
} from 'class-validator';

/** Clocks of callers and of the service differ a little: an instant this far ahead is still "now". */
const FUTURE_TOLERANCE_SECONDS = 5;

/** An instant that has already happened (UNIX seconds, with a few seconds of clock skew allowed). */
export function IsNotInFuture(options?: ValidationOptions) {
  return (target: object, property: string) =>
    registerDecorator({
      name: 'isNotInFuture',
      target: target.constructor,
      propertyName: property,
      options: { message: `${property} is in the future: history is known up to now`, ...options },
      validator: {
        validate: (value: unknown, _args: ValidationArguments) =>
          typeof value !== 'number' || value <= Date.now() / 1000 + FUTURE_TOLERANCE_SECONDS,
      },
    });
}

/**
 * A query parameter naming an instant: UNIX seconds or ISO-8601 with an
 * offset (`parseInstant`), as UNIX seconds to the handler; anything else is
 * one 400 naming the parameter and both forms.
 */
export function IsInstant(name: string, description: string) {
  return applyDecorators(
    // As a query carries it: text, of the one pattern parseInstant checks (the document states it).
    ApiPropertyOptional({
      type: 'string',
      pattern: INSTANT_PATTERN,
      description: `${description}. ${INSTANT_FORMS[0].toUpperCase()}${INSTANT_FORMS.slice(1)}`,
      example: '2026-11-23T18:44:00Z',
    }),
    Transform(({ value }) => (typeof value === 'string' ? (parseInstant(value.trim()) ?? value) : value)),
    IsNumber({ allowNaN: false, allowInfinity: false }, { message: `${name} must be ${INSTANT_FORMS}` }),
  );
}

/** `?at=`: the read as it was at that recorded instant (time travel). */
export class AtQuery {
  @IsOptional()
  @IsInstant(
    'at',
    'The answer as it was at that recorded instant, no later than now (the past is known; the future is not)',
  )
  @IsNotInFuture()
  at?: number;
}

/** A period's default length: the 30 days before its end. */
const DEFAULT_PERIOD_SECONDS = 30 * 86_400;

/**
 * A period from its query bounds (UNIX seconds) and the end it takes when
 * none is given: `from` defaults to 30 days before `to`; `from` after `to` is
 * a 400 naming `from`.
 */
export function periodOf(from: number | undefined, to: number): { from: number; to: number } {
  const start = from ?? to - DEFAULT_PERIOD_SECONDS;
  if (start > to) {
    throw new ApiError(400, VALIDATION_FAILED, { from: 'from must not be after to' });
  }
  return { from: start, to };
}
