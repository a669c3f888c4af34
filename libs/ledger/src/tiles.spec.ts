import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { consistencyProof, GrowingTree, inclusionProof, leafHash, rootAt } from './merkle';
import { tileKey, tilesNeeded, TileTree, TileWriter } from './tiles';

const leaf = (i: number) => leafHash(`{"event":${i}}`);

/** Tiles kept as the writer drains them, written over by name, as a store would. */
function keep(store: Map<string, Buffer>, writer: TileWriter): void {
  for (const t of writer.drain()) store.set(tileKey(t.name), t.bytes);
}

describe('tiles of a growing tree', () => {
  it('hold every perfect node, drained in batches of any size, resumed from the last tiles', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 6 }), (batches) => {
        const store = new Map<string, Buffer>();
        const memory = new GrowingTree();
        let writer = new TileWriter(0);
        let n = 0;
        for (const batch of batches) {
          for (let i = 0; i < batch; i++) {
            writer.append(leaf(n));
            memory.append(leaf(n));
            n++;
          }
          keep(store, writer);
          // A restart: a new writer from the last tile of each level, as kept.
          const last = [...store.entries()]
            .map(([key, bytes]) => {
              const [level, index] = key.split('/').map(Number);
              return { name: { level, index }, bytes };
            })
            .filter(
              (t, _, all) => !all.some((o) => o.name.level === t.name.level && o.name.index > t.name.index),
            );
          writer = new TileWriter(n, last);
        }
        const tiles = new TileTree(n, store);
        for (const size of [n, Math.max(1, n >> 1), 1])
          assert.deepEqual(rootAt(tiles, size), rootAt(memory, size));
        const index = n - 1;
        assert.deepEqual(inclusionProof(tiles, index, n), inclusionProof(memory, index, n));
        assert.deepEqual(
          consistencyProof(tiles, Math.max(1, n >> 2), n),
          consistencyProof(memory, Math.max(1, n >> 2), n),
        );
      }),
      { numRuns: 60 },
    );
  });

  it('name the few tiles a proof reads before it is made', () => {
    const memory = new GrowingTree();
    const store = new Map<string, Buffer>();
    const writer = new TileWriter(0);
    for (let i = 0; i < 100_000; i++) {
      writer.append(leaf(i));
      memory.append(leaf(i));
    }
    keep(store, writer);
    const proof = (tree: Parameters<typeof inclusionProof>[0]) => inclusionProof(tree, 12_345, 100_000);
    const needed = tilesNeeded(100_000, proof);
    assert.ok(needed.length <= 20, `${needed.length} tiles`);
    const loaded = new Map(needed.map((t) => [tileKey(t), store.get(tileKey(t))!]));
    assert.deepEqual(proof(new TileTree(100_000, loaded)), proof(memory));
  });
});
