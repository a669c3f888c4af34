import { ApiPropertyOptional } from '@nestjs/swagger';
import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { INSTANT_FORMS, parseInstant } from '#des/kernel';
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
export function IsInstant(name: string) {
  return applyDecorators(
    Transform(({ value }) => (typeof value === 'string' ? (parseInstant(value.trim()) ?? value) : value)),
    IsNumber({ allowNaN: false, allowInfinity: false }, { message: `${name} must be ${INSTANT_FORMS}` }),
  );
}

/** `?at=`: the read as it was at that recorded instant (time travel). */
export class AtQuery {
  @ApiPropertyOptional({
    description: 'The answer as it was at that recorded instant: UNIX seconds or ISO-8601 with an offset',
    oneOf: [{ type: 'number' }, { type: 'string', format: 'date-time' }],
  })
  @IsOptional()
  @IsInstant('at')
  @IsNotInFuture()
  at?: number;
}
