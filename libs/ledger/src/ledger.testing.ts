import { createHash } from 'node:crypto';

/**
 * An independent reading of RFC 9162 §2.1 for the tests, by its recursive
 * definitions only: none of the production code (merkle.ts), so a proof the
 * service makes is checked by something that could not share its mistakes.
 */
export const H = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();
const k = (n: number) => 2 ** Math.ceil(Math.log2(n) - 1);

/** MTH(D[n]) over the entries themselves. */
export const mth = (d: Buffer[]): Buffer =>
  d.length === 0
    ? H()
    : d.length === 1
      ? H(Buffer.from([0]), d[0])
      : H(Buffer.from([1]), mth(d.slice(0, k(d.length))), mth(d.slice(k(d.length))));

/** The root an audit path makes from a leaf hash, walking PATH(m, D[n])'s recursion backwards. */
export function rootFromPath(m: number, n: number, leaf: Buffer, path: Buffer[]): Buffer | null {
  if (n === 1) return path.length === 0 ? leaf : null;
  if (path.length === 0) return null;
  const sibling = path[path.length - 1];
  const rest = path.slice(0, -1);
  const split = k(n);
  if (m < split) {
    const left = rootFromPath(m, split, leaf, rest);
    return left && H(Buffer.from([1]), left, sibling);
  }
  const right = rootFromPath(m - split, n - split, leaf, rest);
  return right && H(Buffer.from([1]), sibling, right);
}

/**
 * The two roots a consistency proof makes, walking SUBPROOF(m, D[n], b)'s
 * recursion backwards; `old` is the old tree's root (the proof omits it when b).
 */
export function rootsFromSubproof(
  m: number,
  n: number,
  proof: Buffer[],
  whole: boolean,
  old: Buffer,
): { before: Buffer; after: Buffer } | null {
  if (m === n) {
    if (whole) return proof.length === 0 ? { before: old, after: old } : null;
    return proof.length === 1 ? { before: proof[0], after: proof[0] } : null;
  }
  if (proof.length === 0) return null;
  const last = proof[proof.length - 1];
  const rest = proof.slice(0, -1);
  const split = k(n);
  if (m <= split) {
    const inner = rootsFromSubproof(m, split, rest, whole, old);
    return inner && { before: inner.before, after: H(Buffer.from([1]), inner.after, last) };
  }
  const inner = rootsFromSubproof(m - split, n - split, rest, false, old);
  return (
    inner && {
      before: H(Buffer.from([1]), last, inner.before),
      after: H(Buffer.from([1]), last, inner.after),
    }
  );
}
