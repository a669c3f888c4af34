import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verifySignature } from '#des/actions';
import { SqliteEventStore } from '#des/event-store';
import { modeEnv, startApp, TestApp } from './support/app';
import { Child, eventually, startProcess, startProjector } from './support/processes';
import { Receiver } from './support/receiver';
import { readWholeLog } from './support/log';

/** The event types of every delivery stream in the log, by stream. */
async function deliveryHistories(path: string): Promise<Record<string, string[]>> {
  const store = new SqliteEventStore({ path });
  try {
    const histories: Record<string, string[]> = {};
    for (const e of await readWholeLog(store)) {
      if (e.stream.startsWith('notification-')) (histories[e.stream] ??= []).push(e.type);
    }
    return histories;
  } finally {
    await store.close();
  }
}

describe('actions: a worker killed mid-delivery (server mode, real processes)', () => {
  it('loses no notification: another worker sends it again, and it is recorded once', async () => {
    const receiver = new Receiver();
    const url = await receiver.start();
    // The first request is held (the worker is mid-delivery when it is killed); the next is answered.
    receiver.answer('hang');
    const env = await modeEnv('server', {
      DES_JOB_LOCK_MS: '1000',
      DES_ACTIONS_ALLOW_PRIVATE_TARGETS: 'true',
      DES_ACTIONS_TIMEOUT_MS: '60000',
      DES_ACTIONS_ATTEMPTS: '3',
      DES_ACTIONS_BACKOFF_MS: '50',
    });
    const projector = await startProjector(env);
    let first: Child | undefined = startProcess('worker', env);
    let second: Child | undefined;
    let api: TestApp | undefined;
    try {
      api = await startApp({ mode: 'server', role: 'api', env });
      await api.http.put('/api/v2/environments/acme').send({ name: 'prod', type: 'K8S' }).expect(201);
      const created = await api.http
        .put('/api/v2/actions/acme/environments')
        .send({
          name: 'starts',
          environments: ['prod'],
          triggers: ['ON_STARTED_ARTIFACT'],
          targets: [{ type: 'WEBHOOK', webhook: `${url}/hook` }],
        })
        .expect(201);
      await api.http
        .put('/api/v2/environments/acme/prod/report/K8S')
        .send({
          artifacts: [
            {
              creationTimestamp: 1_790_000_000,
              digests: { 'shop:1': `sha256:${'e5'.repeat(32)}` },
              namespace: 'shop',
              podName: 'shop-1',
            },
          ],
        })
        .expect(201);
      await eventually(
        async () => receiver.received.length,
        (n) => n === 1,
        30_000,
      );
      first.process.kill('SIGKILL');
      await first.exited;
      first = undefined;

      second = startProcess('worker', env);
      const delivered = await eventually(
        () => api!.http.get('/api/v2/actions/acme/1/deliveries').then((r) => r.body.deliveries?.[0]),
        (d) => d?.status === 'delivered',
        60_000,
      ).catch((error: Error) => {
        throw new Error(`${error.message}; second worker: ${second?.output()}`);
      });
      // At least once: the same notification twice, with the same delivery id and a valid signature.
      assert.equal(receiver.received.length, 2);
      const [a, b] = receiver.received;
      assert.equal(a.headers['x-des-delivery'], b.headers['x-des-delivery']);
      assert.equal(a.body, b.body);
      for (const r of receiver.received) {
        assert.ok(
          verifySignature(
            created.body.secret,
            Number(r.headers['x-signature-timestamp']),
            r.body,
            String(r.headers['x-signature-256']),
            Math.floor(Date.now() / 1000),
          ),
        );
      }
      // Recorded once: scheduled, then delivered (the killed try left no outcome).
      const path = api.config.eventStore.kind === 'sqlite' ? api.config.eventStore.path : '';
      assert.deepEqual(Object.values(await deliveryHistories(path)), [
        ['notification_scheduled', 'notification_delivered'],
      ]);
      assert.equal(delivered.attempts.length, 1);
    } finally {
      await api?.close();
      await first?.stop();
      await second?.stop();
      await projector.stop();
      await receiver.close();
    }
  });
});
