import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  consistencyProof,
  GrowingTree,
  inclusionProof,
  leafHash,
  rootAt,
  verifyConsistency,
  verifyInclusion,
} from './merkle';
import { H, mth, rootFromPath, rootsFromSubproof } from './ledger.testing';

const entries = (n: number) => Array.from({ length: n }, (_, i) => Buffer.from(`{"event":${i}}`));
const treeOf = (d: Buffer[]) => {
  const tree = new GrowingTree();
  for (const e of d) tree.append(leafHash(e));
  return tree;
};
const flip = (hashes: Buffer[], i: number) =>
  hashes.map((h, j) => (j === i ? Buffer.from(h.map((b, x) => (x === 0 ? b ^ 1 : b))) : h));

describe('RFC 9162 Merkle trees', () => {
  it('has the root the RFC defines, for every size, as the tree grows', () => {
    const d = entries(70);
    const tree = new GrowingTree();
    assert.deepEqual(rootAt(tree, 0), H());
    for (let n = 1; n <= d.length; n++) {
      tree.append(leafHash(d[n - 1]));
      for (const size of [n, Math.ceil(n / 2), 1])
        assert.deepEqual(rootAt(tree, size), mth(d.slice(0, size)));
    }
  });

  it('proves inclusion: every proof makes the root by the RFC, verifies, and a changed hash fails', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 300 })
          .chain((size) =>
            fc.tuple(
              fc.constant(size),
              fc.integer({ min: 0, max: size - 1 }),
              fc.integer({ min: size, max: 320 }),
            ),
          ),
        ([size, index, grown]) => {
          const d = entries(grown);
          const tree = treeOf(d);
          const root = mth(d.slice(0, size));
          const leaf = leafHash(d[index]);
          const proof = inclusionProof(tree, index, size);
          assert.deepEqual(rootFromPath(index, size, leaf, proof), root);
          assert.ok(verifyInclusion(leaf, index, size, proof, root));
          for (let i = 0; i < proof.length; i++)
            assert.equal(verifyInclusion(leaf, index, size, flip(proof, i), root), false);
          assert.equal(verifyInclusion(leafHash(Buffer.from('forged')), index, size, proof, root), false);
          if (size > 1) assert.equal(verifyInclusion(leaf, (index + 1) % size, size, proof, root), false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('proves consistency: every proof makes both roots by the RFC, verifies, and a changed hash fails', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 300 })
          .chain((to) => fc.tuple(fc.integer({ min: 1, max: to }), fc.constant(to))),
        ([from, to]) => {
          const d = entries(to + 7);
          const tree = treeOf(d);
          const [before, after] = [mth(d.slice(0, from)), mth(d.slice(0, to))];
          const proof = consistencyProof(tree, from, to);
          if (from < to)
            assert.deepEqual(rootsFromSubproof(from, to, proof, true, before), { before, after });
          assert.ok(verifyConsistency(from, to, proof, before, after));
          for (let i = 0; i < proof.length; i++)
            assert.equal(verifyConsistency(from, to, flip(proof, i), before, after), false);
          if (from < to) {
            const other = mth([...d.slice(0, from - 1), Buffer.from('rewritten')]);
            assert.equal(verifyConsistency(from, to, proof, other, after), false, 'a rewritten history');
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses proofs beyond the tree, naming the size', () => {
    const tree = treeOf(entries(5));
    assert.throws(() => inclusionProof(tree, 5, 5), /leaf 5 is not in a tree of 5 leaves/);
    assert.throws(() => inclusionProof(tree, 0, 6), /tree size 6 is beyond the tree \(5 leaves\)/);
    assert.throws(() => consistencyProof(tree, 4, 9), /tree size 9 is beyond the tree/);
    assert.throws(() => consistencyProof(tree, 5, 4), /tree size 5 is not within a tree of 4 leaves/);
  });
});
