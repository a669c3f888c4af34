import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import type { EventStore } from '#des/event-store';
import { EVENT_STORE } from '#des/platform';
import { modeEnv, Mode, startApp, TestApp } from './support/app';
import { OrganizationBootstrap, FEATURES } from '#des/accounts';

const FINGERPRINT = 'e5'.repeat(32);
const report = {
  artifacts: [
    {
      creationTimestamp: 1_790_000_000,
      digests: { 'shop:1': `sha256:${FINGERPRINT}` },
      namespace: 'shop',
      podName: 'shop-1',
    },
  ],
};

const attestationsOf = async (t: TestApp, trail: string) =>
  (await t.app.get<symbol, EventStore>(EVENT_STORE).readStream(`trail-acme/shop/${trail}`)).filter(
    (e) => e.type === 'attestation_reported',
  ).length;

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`Idempotency-Key on writes (${mode} mode)`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp({ mode });
      await t.http.put('/api/v2/flows/acme').send({ name: 'shop' });
      await t.http.put('/api/v2/trails/acme/shop').send({ name: 'build-1' });
      await t.http.put('/api/v2/environments/acme').send({ name: 'prod', type: 'K8S' });
    });
    after(async () => t.close());

    it('answers a retried write with the first response and appends nothing', async () => {
      const attest = () =>
        t.http
          .post('/api/v2/attestations/acme/shop/trail/build-1/generic')
          .set('Idempotency-Key', 'ci-run-17-smoke')
          .send({ attestation_name: 'smoke', description: 'smoke tests passed' });
      const first = await attest();
      assert.equal(first.status, 201, first.text);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      const again = await attest();
      assert.equal(again.status, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.text, first.text);
      assert.match(again.headers['content-type'], /^application\/json/);
      assert.equal(await attestationsOf(t, 'build-1'), 1);
      // Without a key, the same write is a second attestation.
      await t.http
        .post('/api/v2/attestations/acme/shop/trail/build-1/generic')
        .send({ attestation_name: 'smoke', description: 'smoke tests passed' });
      assert.equal(await attestationsOf(t, 'build-1'), 2);
    });

    it('replays a string answer exactly: the retried report is still "Snapshot created"', async () => {
      const put = () =>
        t.http
          .put('/api/v2/environments/acme/prod/report/K8S')
          .set('Idempotency-Key', 'cluster-report-1')
          .send(report);
      const first = await put();
      assert.deepEqual([first.status, first.body], [201, 'Snapshot created']);
      const again = await put();
      assert.deepEqual([again.status, again.body], [201, 'Snapshot created']);
      const plain = await t.http.put('/api/v2/environments/acme/prod/report/K8S').send(report);
      assert.deepEqual([plain.status, plain.body], [200, 'No new snapshot created']);
    });

    it('refuses the same key with another body (422), and keeps a refusal for its retries', async () => {
      const url = '/api/v2/attestations/acme/shop/trail/build-1/generic';
      await t.http.post(url).set('Idempotency-Key', 'k-422').send({ attestation_name: 'a' }).expect(201);
      const other = await t.http.post(url).set('Idempotency-Key', 'k-422').send({ attestation_name: 'b' });
      assert.equal(other.status, 422);
      assert.deepEqual(other.body, {
        message: 'This Idempotency-Key was used with a different request',
        errors: { 'Idempotency-Key': 'already used within 24 hours with another method, path or body' },
      });
      const invalid = () =>
        t.http
          .put('/api/v2/environments/acme')
          .set('Idempotency-Key', 'k-400')
          .send({ name: 'x', type: 'Nope' });
      const refused = await invalid();
      assert.equal(refused.status, 400);
      const retried = await invalid();
      assert.deepEqual(
        [retried.status, retried.body, retried.headers['idempotent-replayed']],
        [400, refused.body, 'true'],
      );
    });

    it('refuses a malformed key', async () => {
      const res = await t.http
        .put('/api/v2/environments/acme')
        .set('Idempotency-Key', 'x'.repeat(256))
        .send({ name: 'staging', type: 'K8S' });
      assert.equal(res.status, 400);
      assert.equal(res.body.message, 'Input payload validation failed');
      assert.ok(res.body.errors['Idempotency-Key']);
      assert.equal((await t.http.get('/api/v2/environments/acme/staging')).status, 404, 'nothing written');
    });

    it('keeps keys per organization: the same key from another organization runs its own request', async () => {
      const { key } = await t.app.get(OrganizationBootstrap).createOrganization('globex', [...FEATURES], 5);
      const globex = request.agent(t.server).set({ Authorization: `Bearer ${key}` });
      await globex.put('/api/v2/flows/globex').send({ name: 'shop' }).expect(201);
      await globex.put('/api/v2/trails/globex/shop').send({ name: 'build-1' }).expect(201);
      const res = await globex
        .post('/api/v2/attestations/globex/shop/trail/build-1/generic')
        .set('Idempotency-Key', 'ci-run-17-smoke')
        .send({ attestation_name: 'smoke', description: 'smoke tests passed' });
      assert.equal(res.status, 201);
      assert.equal(res.headers['idempotent-replayed'], undefined);
    });
  });
}

describe('Idempotency-Key survives a restart and works across API processes (embedded, one SQLite log)', () => {
  let env: NodeJS.ProcessEnv;
  let first: TestApp;
  before(async () => {
    env = await modeEnv('embedded');
    first = await startApp({ mode: 'embedded', env });
    await first.http.put('/api/v2/flows/acme').send({ name: 'shop' });
    await first.http.put('/api/v2/trails/acme/shop').send({ name: 'build-2' });
  });
  after(async () => first.close());

  it('replays after a restart, and from a second process on the same log', async () => {
    const auth = first.auth;
    const attest = (server: TestApp['server'], key: string) =>
      request(server)
        .post('/api/v2/attestations/acme/shop/trail/build-2/generic')
        .set(auth)
        .set('Idempotency-Key', key)
        .send({ attestation_name: 'unit' });
    const original = await attest(first.server, 'restart-1');
    assert.equal(original.status, 201);
    await first.close();
    first = await startApp({ mode: 'embedded', env, bootstrap: false });
    const afterRestart = await attest(first.server, 'restart-1');
    assert.deepEqual([afterRestart.status, afterRestart.text], [201, original.text]);

    const second = await startApp({ mode: 'embedded', env, bootstrap: false });
    try {
      // The same key sent to both processes at once: one runs it, the other replays it or says retry.
      const answers = await Promise.all([attest(first.server, 'twin-1'), attest(second.server, 'twin-1')]);
      const statuses = answers.map((a) => a.status).sort();
      assert.ok(
        JSON.stringify(statuses) === '[201,201]' || JSON.stringify(statuses) === '[201,409]',
        `statuses ${statuses.join(',')}`,
      );
      const replayed = await attest(second.server, 'twin-1');
      assert.equal(replayed.status, 201);
      assert.equal(replayed.headers['idempotent-replayed'], 'true');
      assert.equal(await attestationsOf(second, 'build-2'), 2, 'restart-1 once, twin-1 once');
    } finally {
      await second.close();
    }
    // Kept answers are encrypted under the service key: a process with another key cannot
    // replay them, and answers 500 rather than running the request again.
    const rekeyed = await startApp({
      mode: 'embedded',
      env: { ...env, DES_ACTIONS_SIGNING_KEY: 'another-service-key' },
      bootstrap: false,
    });
    try {
      assert.equal((await attest(rekeyed.server, 'restart-1')).status, 500);
      assert.equal(await attestationsOf(rekeyed, 'build-2'), 2, 'nothing run again');
    } finally {
      await rekeyed.close();
    }
  });
});
