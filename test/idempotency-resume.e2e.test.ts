import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { CommandBus } from '@nestjs/cqrs';
import type { EventStore } from '#des/event-store';
import { EVENT_STORE } from '#des/platform';
import { ChangeIdempotencyKey } from '#des/idempotency';
import { eventually } from './support/processes';
import { Receiver } from './support/receiver';
import { Mode, modeEnv, startApp, TestApp } from './support/app';
import { readWholeLog } from './support/log';

const POLICY = { files: { 'policy.rego': 'package policy\nimport rego.v1\ndefault allow := true\n' } };
const report = {
  artifacts: [
    {
      podName: 'shop-1',
      namespace: 'prod',
      creationTimestamp: 1_790_000_000,
      digests: { 'shop:1': `sha256:${'a7'.repeat(32)}` },
    },
  ],
};

/**
 * A process can die after a write is in the log and before the write's
 * answer is recorded under its Idempotency-Key. Here the recording fails
 * on purpose (the same state a SIGKILL at that moment leaves), the claim
 * lapses at once (DES_IDEMPOTENCY_CLAIM_TIMEOUT_MS=1) and the client
 * retries: the retry finds the lost attempt's writes and answers them
 * instead of writing again.
 */
for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`Idempotency-Key: a retry after an answer that was never recorded resumes the write (${mode} mode)`, () => {
    let t: TestApp;
    let log: EventStore;
    const receiver = new Receiver();
    /** How many of the next answers are lost (their recording fails). */
    let losing = 0;
    before(async () => {
      t = await startApp({
        mode,
        env: await modeEnv(mode, {
          DES_IDEMPOTENCY_CLAIM_TIMEOUT_MS: '1',
          DES_ACTIONS_ALLOW_PRIVATE_TARGETS: 'true',
        }),
      });
      log = t.app.get<symbol, EventStore>(EVENT_STORE);
      const bus = t.app.get(CommandBus);
      const execute = bus.execute.bind(bus);
      bus.execute = ((command: unknown) => {
        if (command instanceof ChangeIdempotencyKey && command.command.kind === 'record' && losing > 0) {
          losing--;
          return Promise.reject(new Error('the process died before recording the answer'));
        }
        return execute(command as never);
      }) as typeof bus.execute;
      await t.http.put('/api/v2/flows/acme').send({ name: 'shop' }).expect(201);
      await t.http.put('/api/v2/trails/acme/shop').send({ name: 't1' }).expect(201);
      await t.http.put('/api/v2/environments/acme').send({ name: 'prod', type: 'K8S' }).expect(201);
    });
    after(async () => {
      await t.close();
      await receiver.close();
    });

    const count = async (stream: string, type: string) =>
      (await log.readStream(stream)).filter((e) => e.type === type).length;

    /** Sent `lost + 1` times with one key, the first `lost` answers never recorded. */
    const retried = async (lost: number, send: () => request.Test) => {
      losing = lost;
      const answers = [];
      for (let i = 0; i <= lost; i++) answers.push(await send());
      assert.equal(losing, 0);
      const replay = await send();
      assert.equal(replay.headers['idempotent-replayed'], 'true', 'the last answer was recorded');
      assert.equal(replay.text, answers[lost].text);
      return answers;
    };

    it('an attestation: recorded once, and answered with the same attestation each time', async () => {
      const answers = await retried(2, () =>
        t.http
          .post('/api/v2/attestations/acme/shop/trail/t1/generic')
          .set('Idempotency-Key', 'attest-1')
          .send({ attestation_name: 'unit', description: 'unit tests passed' }),
      );
      for (const a of answers) assert.deepEqual([a.status, a.text], [201, answers[0].text]);
      assert.equal(await count('trail-acme/shop/t1', 'attestation_reported'), 1);
    });

    it('a K8S report: one snapshot, still "Snapshot created" for the retry', async () => {
      const answers = await retried(1, () =>
        t.http
          .put('/api/v2/environments/acme/prod/report/K8S')
          .set('Idempotency-Key', 'report-1')
          .send(report),
      );
      for (const a of answers) assert.deepEqual([a.status, a.body], [201, 'Snapshot created']);
      assert.equal(await count('environment-acme/prod', 'snapshot_created'), 1);
    });

    it('an evaluation: one evaluation, the same id and instants, completed once', async () => {
      const answers = await retried(1, () =>
        t.http
          .post('/api/v2/evaluations/acme')
          .set('Idempotency-Key', 'evaluate-1')
          .send({ context: { trails: [{ flow: 'shop', trail: 't1' }] }, policy: POLICY }),
      );
      for (const a of answers) assert.deepEqual([a.status, a.text], [201, answers[0].text]);
      const { id } = answers[0].body;
      const done = await eventually(
        () => t.http.get(`/api/v2/evaluations/acme/${id}`),
        (r) => r.body.status === 'completed',
        30_000,
      );
      assert.equal(done.body.result.allow, true);
      const history = await log.readStream(`evaluation-acme/${id}`);
      assert.deepEqual(
        history.map((e) => [e.type, e.metadata.idempotency === undefined]),
        [
          ['evaluation_requested', false],
          // Recorded by the worker's job, never as part of the request that enqueued it.
          ['evaluation_started', true],
          ['evaluation_completed', true],
        ],
      );
      const requested = (await readWholeLog(log)).filter((e) => e.type === 'evaluation_requested');
      assert.equal(requested.length, 1, 'no second evaluation under another id');
    });

    it('an action: created once, and its signing secret shown again', async () => {
      const webhook = await receiver.start();
      const answers = await retried(1, () =>
        t.http
          .put('/api/v2/actions/acme/environments')
          .set('Idempotency-Key', 'action-1')
          .send({
            name: 'starts',
            environments: ['prod'],
            triggers: ['ON_STARTED_ARTIFACT'],
            targets: [{ type: 'WEBHOOK', webhook: `${webhook}/hook` }],
          }),
      );
      for (const a of answers) assert.equal(a.status, 201, a.text);
      assert.match(answers[0].body.secret, /^whsec_/);
      assert.equal(answers[1].body.secret, answers[0].body.secret);
      assert.equal(await count('actions-acme', 'action_created'), 1);
    });

    it('an API key: the key whose answer was lost is revoked, the retry shows a new one that works', async () => {
      await t.http
        .post('/api/v2/service-accounts/acme')
        .send({ name: 'ci', privilege: 'member' })
        .expect(201);
      const answers = await retried(1, () =>
        t.http
          .post('/api/v2/service-accounts/acme/ci/api-keys')
          .set('Idempotency-Key', 'key-1')
          .send({ description: 'pipeline' }),
      );
      const [lost, shown] = answers.map((a) => a.body.key as string);
      assert.equal(answers[1].status, 201);
      assert.notEqual(lost, shown);
      const whoami = (key: string) =>
        request(t.server).get('/api/v2/flows/acme').set('Authorization', `Bearer ${key}`);
      assert.equal((await whoami(lost)).status, 401, 'the lost key never works');
      assert.equal((await whoami(shown)).status, 200);
      const keys = await t.http.get('/api/v2/service-accounts/acme/ci/api-keys');
      assert.deepEqual(
        keys.body.map((k: { id: string }) => k.id),
        [answers[1].body.id],
      );
    });
  });
}
