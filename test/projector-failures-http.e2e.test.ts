import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import type { Projection } from '#des/projections';
import { allProjections } from '#des/service';
import { Mode, modeEnv, startApp, TestApp } from './support/app';
import { FixtureFeatureModule } from './support/fixture-feature';
import { eventually } from './support/processes';

/** A read model that cannot apply a note whose text is `poison`. */
const notesSeen: Projection = {
  name: 'notes_seen',
  collections: [{ name: 'notes_seen', indexes: [] }],
  project(event) {
    if (event.type !== 'note_written') return [];
    if (event.data.text === 'poison') throw new Error('notes_seen cannot handle this note');
    return [{ collection: 'notes_seen', id: event.stream, update: { $inc: { n: 1 } } }];
  },
};

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`a projection stopped by an event it cannot apply, over HTTP (${mode} mode)`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp({
        mode,
        env: await modeEnv(mode, { DES_READ_YOUR_WRITES_TIMEOUT_MS: '30000' }),
        features: [FixtureFeatureModule],
        projections: [...allProjections, notesSeen],
      });
    });
    after(async () => t?.close());

    const timeouts = async () =>
      Number(/des_read_your_writes_timeouts_total (\d+)/.exec((await t.http.get('/metrics')).text)?.[1]);

    it('fails readiness naming it, counts it, and writes still answer with the other read models current', async () => {
      const ready = await t.http.get('/health/ready');
      assert.equal(ready.status, 200, JSON.stringify(ready.body));
      assert.equal(ready.body.details.projections.status, 'up');

      const poisoned = await t.http.put('/api/v2/fixture-notes/acme/p').send({ text: 'poison' });
      assert.equal(poisoned.status, 201, 'the write is in the log: it answers');
      // It answered once the projection was stopped, not after the (30 s) read-your-writes timeout.
      assert.equal(await timeouts(), 0);

      const notReady = await eventually(
        () => t.http.get('/health/ready'),
        (r) => r.status === 503,
      );
      assert.equal(notReady.body.message, 'Service not ready');
      assert.deepEqual(Object.keys(notReady.body.errors), ['projection notes_seen']);
      assert.match(
        notReady.body.errors['projection notes_seen'],
        /^stopped at log position \d+ \(note_written\)/,
      );
      assert.doesNotMatch(JSON.stringify(notReady.body), /cannot handle/, 'no internal detail');
      assert.equal(notReady.headers['retry-after'], '5');
      // The Kosli CLI's `/ready` says the same, not its `OK`.
      const kosliReady = await t.http.get('/ready');
      assert.deepEqual([kosliReady.status, kosliReady.body.message], [503, 'Service not ready']);

      const metrics = (await t.http.get('/metrics')).text;
      assert.match(metrics, /des_projection_failures_total\{projection="notes_seen"\} 1/);

      // The other projections go on, read-your-writes included.
      const next = await t.http.put('/api/v2/fixture-notes/acme/p').send({ text: 'fine' });
      assert.equal(next.status, 201);
      const read = await request(t.server).get('/api/v2/fixture-notes/acme/p').set(t.auth);
      assert.deepEqual(read.body, { events: 2, last_type: 'note_written', revision: 1 });
      assert.equal(await timeouts(), 0);
    });
  });
}
