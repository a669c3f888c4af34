/**
 * How deep JSON may nest in a request. Deeper values are refused before
 * anything recursive (the validation pipe, class-transformer, the canonical
 * JSON of the event log) walks them and runs out of stack.
 */
export const MAX_JSON_DEPTH = 100;

export const TOO_DEEP = `JSON nested deeper than ${MAX_JSON_DEPTH} levels`;

/**
 * How many keys one JSON object may have in a request, by default
 * (`DES_JSON_MAX_KEYS_PER_OBJECT`): a coverage summary with a key per source
 * file, a lock file's packages. Free-form fields are handed to the routes as
 * parsed (`@FreeForm()`), so their width costs only JSON.parse's linear time.
 */
export const MAX_OBJECT_KEYS = 10_000;

/**
 * How many keys an object outside free-form fields may have (a DTO, a map of
 * tags): class-transformer, which the validation pipe runs on every body,
 * drops repeated keys of each object it copies by comparing every key with all
 * those before it (an object of 700,000 keys held the event loop 13 minutes).
 * Within MAX_STRUCTURED_VALUES, that is at most 128 comparisons a value.
 */
export const MAX_STRUCTURED_OBJECT_KEYS = 256;

export const TOO_WIDE_STRUCTURED = `JSON object with more than ${MAX_STRUCTURED_OBJECT_KEYS} keys outside a free-form field`;

/**
 * How many values a body may hold outside free-form fields: class-transformer
 * and class-validator spend about 2 µs on each (100,000 values of objects of
 * 128 keys: 190 ms). 10,000 values (a trail's 1,000 commits) cost about 20 ms.
 */
export const MAX_STRUCTURED_VALUES = 10_000;

export const TOO_MANY_STRUCTURED = `JSON with more than ${MAX_STRUCTURED_VALUES} values outside free-form fields`;

/**
 * How many values (array items, object members, arrays and objects) a
 * request's JSON may hold, by default (`DES_JSON_MAX_VALUES`). Each costs
 * about a microsecond on the event loop in JSON.parse, class-transformer and
 * class-validator: 5 million items of one array held it for 5 s.
 */
export const MAX_JSON_NODES = 100_000;

/** What a request is told for each excess of its JSON text, under `body` or `data_json`. */
export function jsonExcessMessage(
  excess: 'depth' | 'keys' | 'nodes',
  maxKeys = MAX_OBJECT_KEYS,
  maxNodes = MAX_JSON_NODES,
): string {
  if (excess === 'depth') return TOO_DEEP;
  if (excess === 'keys') return `JSON object with more than ${maxKeys} keys`;
  return `JSON with more than ${maxNodes} values (array items and object members)`;
}

/** The JSON shape limits of a request's body (settings). */
export interface JsonShapeLimits {
  maxKeysPerObject: number;
  maxValues: number;
}

/**
 * What of the JSON text's shape is over its limits, read from the text before
 * it is parsed (strings skipped), in one pass: `depth` (arrays and objects
 * nested deeper than `maxDepth`), `keys` (an object with more than `maxKeys`
 * keys, each `:` directly inside it) or `nodes` (more than `maxNodes` values,
 * counted as the commas, `[` and `{` — an upper bound).
 */
export function jsonTextExcess(
  text: Buffer,
  maxDepth = MAX_JSON_DEPTH,
  maxKeys = MAX_OBJECT_KEYS,
  maxNodes = MAX_JSON_NODES,
): 'depth' | 'keys' | 'nodes' | undefined {
  let depth = 0;
  let nodes = 0;
  // Keys seen so far in the object open at each depth (-1: an array).
  const keys = new Int32Array(maxDepth + 2);
  for (let i = 0; i < text.length; i++) {
    const byte = text[i];
    if (byte === 0x22) {
      i = jsonStringEnd(text, i + 1);
      if (i < 0) return undefined;
    } else if (byte === 0x7b || byte === 0x5b) {
      if (++depth > maxDepth) return 'depth';
      if (++nodes > maxNodes) return 'nodes';
      keys[depth] = byte === 0x7b ? 0 : -1;
    } else if (byte === 0x2c) {
      if (++nodes > maxNodes) return 'nodes';
    } else if (byte === 0x7d || byte === 0x5d) {
      if (depth > 0) depth--;
    } else if (byte === 0x3a && depth > 0 && keys[depth] >= 0 && ++keys[depth] > maxKeys) return 'keys';
  }
  return undefined;
}

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
