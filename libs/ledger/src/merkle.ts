import { createHash } from 'node:crypto';

/**
 * RFC 9162 (Certificate Transparency 2.0) Merkle trees, §2.1: the leaf hash
 * of an entry, the hash of a node, a tree's root, and the inclusion and
 * consistency proofs with their verification. Pure: the hashes a tree holds
 * come from a `TreeHashes` (kept in memory, in tiles, or recomputed).
 */
export type Hash = Buffer;

const sha256 = (...parts: Buffer[]): Hash => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const LEAF = Buffer.from([0x00]);
const NODE = Buffer.from([0x01]);

/** MTH({d}) = SHA-256(0x00 ‖ d). */
export const leafHash = (entry: string | Buffer): Hash =>
  sha256(LEAF, typeof entry === 'string' ? Buffer.from(entry, 'utf8') : entry);

/** SHA-256(0x01 ‖ left ‖ right). */
export const nodeHash = (left: Hash, right: Hash): Hash => sha256(NODE, left, right);

/** MTH({}) = SHA-256 of nothing. */
export const EMPTY_ROOT: Hash = sha256();

/** The largest power of two smaller than n (n > 1). */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The hashes of a tree's perfect subtrees: `perfect(level, index)` is the
 * root of leaves [index·2^level, (index+1)·2^level), all of which exist.
 */
export interface TreeHashes {
  readonly size: number;
  perfect(level: number, index: number): Hash;
}

/** MTH(D[start:end]) from the perfect subtrees that make it up. */
export function rangeHash(tree: TreeHashes, start: number, end: number): Hash {
  const n = end - start;
  if (n === 0) return EMPTY_ROOT;
  // An aligned power-of-two range is a kept node.
  if ((n & (n - 1)) === 0 && start % n === 0) return tree.perfect(Math.log2(n), start / n);
  const k = splitPoint(n);
  return nodeHash(rangeHash(tree, start, start + k), rangeHash(tree, start + k, end));
}

/** The root of the tree's first `size` leaves. */
export const rootAt = (tree: TreeHashes, size: number): Hash => rangeHash(tree, 0, size);

function checkSize(tree: TreeHashes, size: number): void {
  if (!Number.isInteger(size) || size < 0 || size > tree.size)
    throw new RangeError(`tree size ${size} is beyond the tree (${tree.size} leaves)`);
}

/** PATH(m, D[n]), §2.1.3.1: the audit path of leaf `index` in the tree of the first `size` leaves. */
export function inclusionProof(tree: TreeHashes, index: number, size: number): Hash[] {
  checkSize(tree, size);
  if (!Number.isInteger(index) || index < 0 || index >= size)
    throw new RangeError(`leaf ${index} is not in a tree of ${size} leaves`);
  const path = (m: number, start: number, end: number): Hash[] => {
    const n = end - start;
    if (n <= 1) return [];
    const k = splitPoint(n);
    return m < k
      ? [...path(m, start, start + k), rangeHash(tree, start + k, end)]
      : [...path(m - k, start + k, end), rangeHash(tree, start, start + k)];
  };
  return path(index, 0, size);
}

/** PROOF(m, D[n]), §2.1.4.1: that the tree of `from` leaves is a prefix of the tree of `to`. */
export function consistencyProof(tree: TreeHashes, from: number, to: number): Hash[] {
  checkSize(tree, to);
  if (!Number.isInteger(from) || from < 0 || from > to)
    throw new RangeError(`tree size ${from} is not within a tree of ${to} leaves`);
  if (from === 0 || from === to) return [];
  const subproof = (m: number, start: number, end: number, whole: boolean): Hash[] => {
    const n = end - start;
    if (m === n) return whole ? [] : [rangeHash(tree, start, end)];
    const k = splitPoint(n);
    return m <= k
      ? [...subproof(m, start, start + k, whole), rangeHash(tree, start + k, end)]
      : [...subproof(m - k, start + k, end, false), rangeHash(tree, start, start + k)];
  };
  return subproof(from, 0, to, true);
}

/** §2.1.3.2: does `proof` show `leaf` at `index` in the tree of `size` leaves whose root is `root`? */
export function verifyInclusion(leaf: Hash, index: number, size: number, proof: Hash[], root: Hash): boolean {
  if (index >= size || index < 0) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn >>>= 1;
        sn >>>= 1;
      }
    } else {
      r = nodeHash(r, p);
    }
    fn >>>= 1;
    sn >>>= 1;
  }
  return sn === 0 && r.equals(root);
}

/** §2.1.4.2: does `proof` show the tree of `from` leaves (root `fromRoot`) a prefix of the tree of `to` (root `toRoot`)? */
export function verifyConsistency(
  from: number,
  to: number,
  proof: Hash[],
  fromRoot: Hash,
  toRoot: Hash,
): boolean {
  if (from > to || from < 0) return false;
  if (from === to) return proof.length === 0 && fromRoot.equals(toRoot);
  if (from === 0) return proof.length === 0;
  if (proof.length === 0) return false;
  const path = (from & (from - 1)) === 0 ? [fromRoot, ...proof] : [...proof];
  let fn = from - 1;
  let sn = to - 1;
  while (fn % 2 === 1) {
    fn >>>= 1;
    sn >>>= 1;
  }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn >>>= 1;
        sn >>>= 1;
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn >>>= 1;
    sn >>>= 1;
  }
  return sn === 0 && fr.equals(fromRoot) && sr.equals(toRoot);
}

/**
 * A tree kept in memory as it grows: each level's perfect nodes, appended
 * as the leaves below them complete. Extending it by one leaf costs one hash
 * per level it completes (two on average).
 */
export class GrowingTree implements TreeHashes {
  private readonly levels: Hash[][] = [[]];

  get size(): number {
    return this.levels[0].length;
  }

  append(leaf: Hash): void {
    let hash = leaf;
    let level = 0;
    for (;;) {
      const row = (this.levels[level] ??= []);
      row.push(hash);
      if (row.length % 2 === 1) return;
      hash = nodeHash(row[row.length - 2], hash);
      level++;
    }
  }

  perfect(level: number, index: number): Hash {
    const hash = this.levels[level]?.[index];
    if (!hash) throw new RangeError(`no complete node ${level}/${index} in a tree of ${this.size} leaves`);
    return hash;
  }
}
