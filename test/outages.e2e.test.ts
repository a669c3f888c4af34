import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { EventStore } from '#des/event-store';
import { EVENT_STORE } from '#des/platform';
import { Engine, freePort, startMongo, startRedis, uniqueName } from './support/engines';
import { startApp, TestApp } from './support/app';
import { assertDatabaseUnavailable } from './support/outage';
import { checkpointCovering } from './support/ledger';
import { eventually } from './support/processes';

const POLICY = { files: { 'policy.rego': 'package policy\nimport rego.v1\ndefault allow := true\n' } };

/**
 * Server mode with engines of its own, stopped while the service runs and
 * started again: while one is away the requests that need it answer 503 with
 * the spec's body and Retry-After, readiness names it, nothing is half
 * written; once it is back the same process serves again, unrestarted.
 */
describe('outages mid-run: an engine stopped and started again (server mode)', () => {
  let t: TestApp;
  let events: EventStore;
  let redis: Engine;
  let mongo: Engine;
  const redisPort = { value: 0 };
  const mongoAt = { port: 0, dir: '' };
  let eventsPath: string;

  before(async () => {
    redisPort.value = await freePort();
    mongoAt.port = await freePort();
    mongoAt.dir = mkdtempSync(join(tmpdir(), 'des-outage-mongo-'));
    redis = await startRedis(redisPort.value);
    mongo = await startMongo(mongoAt);
    // Its own engines only (modeEnv would also start or share the suite's).
    const env: NodeJS.ProcessEnv = {
      DES_DATA_DIR: mkdtempSync(join(tmpdir(), 'des-outage-')),
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
      MONGODB_URL: mongo.url,
      MONGODB_DATABASE: uniqueName('outage'),
      REDIS_URL: redis.url,
      DES_QUEUE_PREFIX: uniqueName('outage'),
      DES_CONNECT_TIMEOUT_MS: '500',
    };
    eventsPath = join(env.DES_DATA_DIR!, 'events.db');
    t = await startApp({ mode: 'server', env });
    events = t.app.get(EVENT_STORE);
    assert.equal((await t.http.put('/api/v2/flows/acme').send({ name: 'shop' })).status, 201);
    assert.equal((await t.http.put('/api/v2/trails/acme/shop').send({ name: 't1' })).status, 201);
  });
  after(async () => {
    await t?.close();
    await redis?.stop();
    await mongo?.stop();
    // Kept at each stop for the next start; a PostgreSQL cluster under FerretDB is ~40 MB.
    if (mongoAt.dir) rmSync(mongoAt.dir, { recursive: true, force: true });
  });

  const ready = () => t.http.get('/health/ready');
  const head = async () => (await events.head()).position;

  it('the MongoDB-wire server away: 503 and readiness name it, nothing recorded; back: served again', async () => {
    await checkpointCovering(t, 'acme');
    await mongo.stop();
    const before = await head();
    assertDatabaseUnavailable(await t.http.get('/api/v2/flows/acme/shop'));
    assertDatabaseUnavailable(await t.http.put('/api/v2/flows/acme').send({ name: 'during' }));
    const notReady = await ready();
    assert.equal(notReady.status, 503);
    assert.ok(
      Object.keys(notReady.body.errors).some((k) => k.startsWith('read_store')),
      notReady.text,
    );
    assert.equal(await head(), before, 'nothing was recorded while the read store was away');

    mongo = await startMongo(mongoAt);
    await eventually(
      () => t.http.get('/api/v2/flows/acme/shop'),
      (res) => res.status === 200,
      60_000,
    );
    assert.equal((await ready()).status, 200);
    assert.equal((await t.http.put('/api/v2/flows/acme').send({ name: 'after' })).status, 201);
    assert.equal((await t.http.get('/api/v2/flows/acme/after')).status, 200);
  });

  it('Redis away: an evaluation answers 503 and is not recorded, readiness names the queue; back: evaluated again', async () => {
    // The transparency log signs the writes so far first: its checkpoint is the service's own event, not the evaluation's.
    await checkpointCovering(t, 'acme');
    await redis.stop();
    const before = await head();
    const refused = await t.http
      .post('/api/v2/evaluations/acme')
      .send({ context: { trails: [{ flow: 'shop', trail: 't1' }] }, policy: POLICY });
    assertDatabaseUnavailable(refused);
    assert.equal(await head(), before, 'no evaluation recorded without its job');
    const notReady = await ready();
    assert.equal(notReady.status, 503);
    assert.ok(
      Object.keys(notReady.body.errors).some((k) => k.startsWith('jobs')),
      notReady.text,
    );
    // Reads and other writes go on without the queue.
    assert.equal((await t.http.get('/api/v2/trails/acme/shop/t1')).status, 200);

    redis = await startRedis(redisPort.value);
    const accepted = await eventually(
      () =>
        t.http
          .post('/api/v2/evaluations/acme')
          .send({ context: { trails: [{ flow: 'shop', trail: 't1' }] }, policy: POLICY }),
      (res) => res.status === 201,
      60_000,
    );
    const done = await eventually(
      () => t.http.get(`/api/v2/evaluations/acme/${accepted.body.id}`),
      (res) => res.body.status === 'completed',
      60_000,
    );
    assert.equal(done.body.result.allow, true);
    assert.equal((await ready()).status, 200);
  });

  it('the event store locked by another process: writes answer 503 and record nothing; released: they land', async () => {
    await checkpointCovering(t, 'acme');
    const lock = new Database(eventsPath);
    lock.exec('BEGIN EXCLUSIVE');
    const before = await head();
    try {
      assertDatabaseUnavailable(
        await t.http
          .post('/api/v2/attestations/acme/shop/trail/t1/generic')
          .send({ attestation_name: 'locked' }),
      );
      // Reads go on from the read models.
      assert.equal((await t.http.get('/api/v2/trails/acme/shop/t1')).status, 200);
    } finally {
      lock.exec('COMMIT');
      lock.close();
    }
    assert.equal(await head(), before);
    const res = await t.http
      .post('/api/v2/attestations/acme/shop/trail/t1/generic')
      .send({ attestation_name: 'released' });
    assert.equal(res.status, 201, res.text);
    const trail = await t.http.get('/api/v2/trails/acme/shop/t1');
    assert.deepEqual(Object.keys(trail.body.attestations), ['released']);
  });
});
