/** How often each trail stands in the input: once in `trails`, and again as `trail` when it is the only one. */
export const timesInInput = (trails: number): number => (trails === 1 ? 2 : 1);

/** What a policy reads as `input`: every trail once, and `trail` too when there is one. */
export function policyInputBytes(trailsJson: string[]): number {
  let bytes = '{"trails":[]}'.length + Math.max(0, trailsJson.length - 1);
  const times = timesInInput(trailsJson.length);
  for (const json of trailsJson) bytes += times * Buffer.byteLength(json, 'utf8');
  if (times === 2) bytes += ',"trail":'.length;
  return bytes;
}

/**
 * The input's JSON as UTF-8, written straight into one buffer of its own
 * (moved, not copied, to the evaluating thread): no joined text of the whole
 * input is ever made beside it.
 */
export function assemblePolicyInput(trailsJson: string[]): Uint8Array {
  const out = Buffer.allocUnsafeSlow(policyInputBytes(trailsJson));
  let at = out.write('{"trails":[', 0, 'utf8');
  trailsJson.forEach((json, i) => {
    if (i > 0) at += out.write(',', at, 'utf8');
    at += out.write(json, at, 'utf8');
  });
  at += out.write(']', at, 'utf8');
  if (trailsJson.length === 1) {
    at += out.write(',"trail":', at, 'utf8');
    at += out.write(trailsJson[0], at, 'utf8');
  }
  out.write('}', at, 'utf8');
  return new Uint8Array(out.buffer, 0, out.length);
}

/** Each trail once, in the order first listed: a trail listed again is assembled (and counted) once. */
export function distinctTrails<T extends { flow: string; trail: string }>(refs: T[]): T[] {
  const seen = new Set<string>();
  return refs.filter((ref) => {
    const key = `${ref.flow}\u0000${ref.trail}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Why an evaluation's trails were not assembled: they hold more than its input may. */
export const inputTooLarge = (bytes: number, limit: number, what = 'hold') =>
  `the trails of this evaluation ${what} ${bytes} bytes, over the evaluation input limit of ${limit} bytes`;
