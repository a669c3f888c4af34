import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { SqliteEventStore } from '#des/event-store';
import { MemoryReadStore } from '#des/read-store';
import { Projector } from './projector';
import { streamStatsProjection } from './stream-stats.projection';

describe('Projector (SQLite + memory)', () => {
  it('follows live appends, and a rebuild gives the same documents', async () => {
    const events = new SqliteEventStore({ path: ':memory:' });
    const reads = new MemoryReadStore();
    const projector = new Projector(events, reads, [streamStatsProjection], { batchSize: 7 });
    await projector.start();
    let last = 0;
    for (let i = 0; i < 50; i++) {
      const r = await events.append(
        `env-acme/e${i % 4}`,
        [{ id: randomUUID(), type: `t${i}`, data: {}, metadata: { org: 'acme' } }],
        'any',
      );
      last = r.position;
    }
    assert.equal(await projector.waitFor(last, 2000), true);
    const live = await reads.collection('stream_stats').find({}, { sort: { _id: 1 } });
    assert.deepEqual(
      live.map((d) => [d._id, d.events, d.last_type]),
      [
        ['env-acme/e0', 13, 't48'],
        ['env-acme/e1', 13, 't49'],
        ['env-acme/e2', 12, 't46'],
        ['env-acme/e3', 12, 't47'],
      ],
    );
    await projector.rebuild();
    assert.deepEqual(await reads.collection('stream_stats').find({}, { sort: { _id: 1 } }), live);
    await projector.stop();
    await events.close();
  });
});
