import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { SqliteEventStore } from '#des/event-store';
import { loadConfig, PlatformRuntime } from '#des/platform';
import { freePort } from './support/engines';
import { modeEnv, startApp, TestApp } from './support/app';
import { FixtureFeatureModule } from './support/fixture-feature';
import { Child, eventually, startProcess, startProjector } from './support/processes';
import { assertDatabaseUnavailable } from './support/outage';
import { readWholeLog } from './support/log';

describe('server mode: API, projector and worker as separate processes', () => {
  let env: NodeJS.ProcessEnv;
  let api: TestApp;
  let projector: Child;
  let worker: Child;
  before(async () => {
    env = await modeEnv('server', { DES_PROJECTOR_LEASE_MS: '1500' });
    projector = await startProjector(env);
    worker = startProcess('worker', env);
    api = await startApp({ mode: 'server', role: 'api', env, features: [FixtureFeatureModule] });
  });
  after(async () => {
    await api?.close();
    await projector?.stop();
    await worker?.stop();
  });

  it('answers writes once the separate projector has applied them', async () => {
    for (let i = 1; i <= 5; i++) {
      const put = await api.http.put('/api/v2/fixture-notes/acme/remote').send({ text: `r${i}` });
      assert.equal(put.status, 201, projector.output());
      const get = await api.http.get('/api/v2/fixture-notes/acme/remote');
      assert.deepEqual(get.body, { events: i, last_type: 'note_written', revision: i - 1 });
    }
  });

  it('answers writes at once on an instance standing by for the lease: the holder applies them', async () => {
    const standby = await startApp({
      mode: 'server',
      role: 'all',
      env,
      org: 'standby',
      features: [FixtureFeatureModule],
    });
    try {
      for (let i = 1; i <= 3; i++) {
        const put = await standby.http.put('/api/v2/fixture-notes/standby/waiting').send({ text: `s${i}` });
        assert.equal(put.status, 201, JSON.stringify(put.body));
        const get = await standby.http.get('/api/v2/fixture-notes/standby/waiting');
        assert.deepEqual(get.body, { events: i, last_type: 'note_written', revision: i - 1 });
      }
      assert.equal(
        standby.app.get(PlatformRuntime).appliedPosition,
        undefined,
        'it stood by: the projector process applied them',
      );
    } finally {
      await standby.close();
    }
  });

  it('lets only the lease holder project, and hands over when it stops', async () => {
    const second = startProcess('projector', env);
    try {
      // The second process is up and has tried for the lease (and been refused) before the first stops.
      await eventually(
        async () => second.output(),
        (o) => /lease held by another instance/.test(o),
        15_000,
      );
      assert.doesNotMatch(second.output(), /caught up/, 'a second projector waits while the lease is held');
      await projector.stop();
      await eventually(
        async () => second.output(),
        (o) => /caught up/.test(o),
        15_000,
      );
      const put = await api.http.put('/api/v2/fixture-notes/acme/remote').send({ text: 'after-handover' });
      assert.equal(put.status, 201);
      const get = await api.http.get('/api/v2/fixture-notes/acme/remote');
      assert.equal(get.body.events, 6);
    } finally {
      await second.stop();
    }
  });

  it('runs the worker process against Redis', async () => {
    await eventually(
      async () => worker.output(),
      (o) => /consuming .*\(bullmq\)/.test(o),
      15_000,
    );
    assert.equal(worker.process.exitCode, null);
  });
});

describe('server mode: unreachable engines answer 503 and fail readiness', () => {
  it('read store down: reads answer 503 with Retry-After; readiness names the read store', async () => {
    const deadPort = await freePort();
    const env = await modeEnv('server', {
      MONGODB_URL: `mongodb://127.0.0.1:${deadPort}/`,
      DES_CONNECT_TIMEOUT_MS: '300',
    });
    const t = await startApp({
      mode: 'server',
      role: 'api',
      env,
      features: [FixtureFeatureModule],
      bootstrap: false,
    });
    try {
      const get = await request(t.server)
        .get('/api/v2/fixture-notes/acme/any')
        .set('Authorization', 'Bearer des_whatever');
      assertDatabaseUnavailable(get);
      const ready = await request(t.server).get('/health/ready');
      assert.equal(ready.status, 503);
      assert.equal(ready.body.message, 'Service not ready');
      assert.deepEqual(Object.keys(ready.body.errors), ['read_store (mongodb)']);
      assert.equal((await request(t.server).get('/health/live')).status, 200);
    } finally {
      await t.close();
    }
  });

  it('event store down (KurrentDB unreachable): writes answer 503 and record nothing', async () => {
    // A key that the read models know, then an API whose event store is unreachable.
    const healthy = await modeEnv('server');
    const seeded = await startApp({ mode: 'server', env: healthy });
    await seeded.close();
    const sqlitePath = (loadConfig(healthy).eventStore as { path: string }).path;
    const sqliteLog = async () => {
      const store = new SqliteEventStore({ path: sqlitePath });
      try {
        return await readWholeLog(store);
      } finally {
        await store.close();
      }
    };
    const logBefore = await sqliteLog();
    const deadPort = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...healthy,
      KURRENTDB_URL: `kurrentdb://127.0.0.1:${deadPort}?tls=false`,
    };
    const t = await startApp({
      mode: 'server',
      role: 'api',
      env,
      features: [FixtureFeatureModule],
      bootstrap: false,
    });
    try {
      const put = await request(t.server)
        .put('/api/v2/fixture-notes/acme/k')
        .set(seeded.auth)
        .send({ text: 'x' });
      assertDatabaseUnavailable(put);
      const ready = await request(t.server).get('/health/ready');
      assert.equal(ready.status, 503);
      assert.deepEqual(Object.keys(ready.body.errors), ['event_store (kurrentdb)']);
      // The write went nowhere: not to the unreachable store, and not to the embedded log it could fall back to.
      const logAfter = await sqliteLog();
      assert.equal(logAfter.length, logBefore.length, 'nothing was recorded');
      assert.ok(!logAfter.some((e) => e.stream.startsWith('note-')));
      assert.ok(logBefore.length > 0, 'the seeded organization is in the embedded log');
    } finally {
      await t.close();
    }
  });

  it('Redis down: readiness names the job queue', async () => {
    const deadPort = await freePort();
    const env = await modeEnv('server', { REDIS_URL: `redis://127.0.0.1:${deadPort}` });
    const t = await startApp({ mode: 'server', role: 'api', env, bootstrap: false });
    try {
      const ready = await request(t.server).get('/health/ready');
      assert.equal(ready.status, 503);
      assert.deepEqual(Object.keys(ready.body.errors), ['jobs (bullmq)']);
    } finally {
      await t.close();
    }
  });
});
