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
  for (let i = 0; i < text.length; i++) {
    const byte = text[i];
    if (byte === 0x22) {
      i = jsonStringEnd(text, i + 1); // strings skipped whole
      if (i < 0) return false;
    } else if (byte === 0x7b || byte === 0x5b) {
      if (++depth > limit) return true; // { [
    } else if (byte === 0x7d || byte === 0x5d) depth--; // } ]
  }
  return false;
}

/**
 * Where a JSON string whose text starts at `start` (after its opening quote)
 * ends: the next quote not escaped (after an even run of backslashes), or -1.
 * Found with the buffer's native search, so long strings cost little.
 */
export function jsonStringEnd(text: Buffer, start: number): number {
  for (let at = text.indexOf(0x22, start); at >= 0; at = text.indexOf(0x22, at + 1)) {
    let backslashes = 0;
    while (at - backslashes - 1 >= start && text[at - backslashes - 1] === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}
