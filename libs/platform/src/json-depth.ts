/**
 * How deep JSON may nest in a request. Deeper values are refused before
 * anything recursive (the validation pipe, class-transformer, the canonical
 * JSON of the event log) walks them and runs out of stack.
 */
export const MAX_JSON_DEPTH = 100;

export const TOO_DEEP = `JSON nested deeper than ${MAX_JSON_DEPTH} levels`;

/**
 * Whether JSON text nests deeper than `limit` arrays and objects, read from
 * the text before it is parsed (strings skipped), so a body nested millions
 * deep is refused without building its values.
 */
export function textNestsDeeperThan(text: Buffer, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const byte = text[i];
    if (inString) {
      if (byte === 0x5c)
        i++; // a backslash escapes the next byte
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x7b || byte === 0x5b) {
      if (++depth > limit) return true; // { [
    } else if (byte === 0x7d || byte === 0x5d) depth--; // } ]
  }
  return false;
}
