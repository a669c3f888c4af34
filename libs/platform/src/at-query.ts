import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsNumber,
  IsOptional,
  Min,
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

/** `?at=<UNIX seconds>`: the read as it was at that recorded instant (time travel). */
export class AtQuery {
  @ApiPropertyOptional({ description: 'UNIX seconds: the answer as it was at that recorded instant' })
  @IsOptional()
  @Type(() => Number)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'at must be a UNIX timestamp (seconds)' })
  @Min(0, { message: 'at must be a UNIX timestamp (seconds)' })
  @IsNotInFuture()
  at?: number;
}
