import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DocTable } from './doc-table';
import type { Doc } from './read-store.port';

type Op =
  | { kind: 'set'; table: number; id: string; v: number }
  | { kind: 'delete'; table: number; id: string }
  | { kind: 'copy'; table: number };

const id = fc.integer({ min: 0, max: 40 }).map((n) => `d${n}`);
const table = fc.nat(7);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('set' as const), table, id, v: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), table, id }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('copy' as const), table }) },
);

const entries = (t: DocTable) => [...t.values()].map((d) => [d._id, d.v]);

describe('DocTable', () => {
  it('given any sets, deletes and copies, when read, then every table behaves as its own Map (order included), and ranks follow that order', () => {
    fc.assert(
      fc.property(
        fc.array(op, { minLength: 20, maxLength: 300, size: 'max' }),
        fc.constantFrom(0, 4, 64),
        (ops, slack) => {
          const tables = [new DocTable(slack)];
          const models = [new Map<string, Doc>()];
          for (const o of ops) {
            const i = o.table % tables.length;
            if (o.kind === 'set') {
              const doc = { _id: o.id, v: o.v };
              tables[i].set(o.id, doc);
              models[i].set(o.id, doc);
            } else if (o.kind === 'delete') {
              tables[i].delete(o.id);
              models[i].delete(o.id);
            } else {
              tables.push(tables[i].copy());
              models.push(new Map(models[i]));
            }
          }
          tables.forEach((t, i) => {
            const model = models[i];
            assert.deepEqual(
              entries(t),
              [...model.values()].map((d) => [d._id, d.v]),
            );
            assert.equal(t.size, model.size);
            // Ranks grow in the table's order: sorting matches by rank gives back that order.
            const ranks = [...t.values()].map((d) => t.rank(d._id)!);
            assert.ok(
              ranks.every((r, k) => k === 0 || r > ranks[k - 1]),
              `ranks in order: ${ranks.join(',')}`,
            );
            for (let n = 0; n <= 40; n++) assert.equal(t.get(`d${n}`), model.get(`d${n}`));
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('given a large table, when copied and changed a little, then the copy weighs its changes, not its documents', () => {
    const big = new DocTable();
    for (let n = 0; n < 10_000; n++) big.set(`d${n}`, { _id: `d${n}` });
    const copy = big.copy();
    copy.set('d1', { _id: 'd1', changed: true });
    copy.set('new', { _id: 'new' });
    const seen = new Set<object>();
    assert.equal(big.weigh(seen), 10_000);
    assert.equal(copy.weigh(seen), 2);
    assert.equal(big.get('d1')?.changed, undefined);
    assert.equal(copy.get('d1')?.changed, true);
  });
});
