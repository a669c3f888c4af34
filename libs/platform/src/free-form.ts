import { applyDecorators } from '@nestjs/common';
import { Exclude, Transform, Type } from 'class-transformer';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';

/**
 * What class-transformer copies a free-form field's value into: a class
 * that exposes nothing, so not one of the value's keys is walked.
 */
@Exclude()
class FreeFormValue {}

/**
 * A field kept as sent (user data, a JSON schema): the validation pipe's
 * class-transformer hands the parsed value over instead of copying it.
 * Its copy drops repeated keys by comparing each key of an object with all
 * those before it, quadratic in the object's keys (10,000 keys: 230 ms);
 * a free-form field costs nothing however wide. Its validators
 * (`@IsObject()`) still apply, to the value as sent.
 */
export const FreeForm = (): PropertyDecorator =>
  applyDecorators(
    Type(() => FreeFormValue),
    Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => obj[key]),
  );

/** A class a request's body (or a part of it) is copied into. */
export type DtoClass = abstract new (...args: never[]) => unknown;

/** The class class-transformer copies `key` of an object of `target` into (none: a plain copy). */
function typeOf(target: DtoClass, key: string, object: object): DtoClass | undefined {
  const meta = defaultMetadataStorage.findTypeMetadata(target, key);
  if (!meta) return undefined;
  const type = meta.typeFunction
    ? meta.typeFunction({ newObject: {}, object, property: key })
    : meta.reflectedType;
  return type as DtoClass | undefined;
}

/** What of a body's structured part (outside free-form fields) is over its limits. */
export interface StructuredExcess {
  /** `keys`: an object wider than allowed (at `path`); `values`: more values than allowed in all (`path` empty). */
  excess: 'keys' | 'values';
  path: (string | number)[];
}

/**
 * What of `value`, outside free-form fields, the pipe's class-transformer
 * would take too long to copy: an object of more than `maxKeys` keys (its
 * copy is quadratic in them), or more than `maxValues` values in all (each
 * costs it about 2 µs). Undefined if neither. One pass, guided by the DTO's
 * `@Type`s, that stops at the first excess; free-form fields are not entered.
 */
export function structuredExcess(
  value: unknown,
  target: DtoClass | undefined,
  limits: { maxKeys: number; maxValues: number },
): StructuredExcess | undefined {
  let values = 0;
  const walk = (value: unknown, target: DtoClass | undefined): StructuredExcess | undefined => {
    if (++values > limits.maxValues) return { excess: 'values', path: [] };
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const found = walk(value[i], target);
        if (found) return found.excess === 'keys' ? { ...found, path: [i, ...found.path] } : found;
      }
      return undefined;
    }
    if (value === null || typeof value !== 'object') return undefined;
    const keys = Object.keys(value);
    if (keys.length > limits.maxKeys) return { excess: 'keys', path: [] };
    for (const key of keys) {
      const type = target && typeOf(target, key, value);
      if (type === FreeFormValue) continue;
      const found = walk((value as Record<string, unknown>)[key], type);
      if (found) return found.excess === 'keys' ? { ...found, path: [key, ...found.path] } : found;
    }
    return undefined;
  };
  return walk(value, target);
}

/** A path as the API's error bodies name a field (`trails[3].tags`), bounded: its keys come from the request. */
export function fieldPath(path: (string | number)[], maxLength = 200): string {
  let text = '';
  for (const part of path) text += typeof part === 'number' ? `[${part}]` : text ? `.${part}` : part;
  return text.length > maxLength ? `${text.slice(0, maxLength)}…` : text || 'body';
}
