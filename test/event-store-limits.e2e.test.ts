import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EVENT_STORE } from '#des/platform';
import type { EventStore } from '#des/event-store';
import { modeEnv, startApp, TestApp } from './support/app';

const pod = (i: number) => ({
  creationTimestamp: 1_790_000_000,
  digests: { [`svc-${i}:1`]: `sha256:${i.toString(16).padStart(64, '0')}` },
  namespace: 'shop',
  podName: `svc-${i}-0`,
});

describe('event store size limit over HTTP (DES_MAX_APPEND_SIZE)', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp({
      mode: 'embedded',
      env: await modeEnv('embedded', { DES_MAX_APPEND_SIZE: '20000' }),
    });
    for (const [name, type] of [
      ['prod', 'K8S'],
      ['tasks', 'ECS'],
    ]) {
      const created = await t.http.put('/api/v2/environments/acme').send({ name, type });
      assert.equal(created.status, 201);
    }
  });
  after(async () => t.close());

  it('answers a report whose snapshot would exceed the limit 413, and records nothing', async () => {
    const events = t.app.get<EventStore>(EVENT_STORE);
    assert.equal(events.maxAppendSize, 20000, 'the configured limit reaches the store');
    const before = await events.readStream('environment-acme/prod');
    const big = await t.http
      .put('/api/v2/environments/acme/prod/report/K8S')
      .send({ artifacts: Array.from({ length: 200 }, (_, i) => pod(i)) });
    assert.equal(big.status, 413, big.text);
    assert.deepEqual(big.body, {
      message:
        "Request too large: the events it would record exceed the event store's limit of 20000 bytes per write",
    });
    assert.deepEqual(await events.readStream('environment-acme/prod'), before, 'nothing recorded');
    const small = await t.http
      .put('/api/v2/environments/acme/prod/report/K8S')
      .send({ artifacts: [pod(1), pod(2)] });
    assert.equal(small.status, 201, small.text);
  });

  it('refuses a report of any type whose snapshot would exceed the limit before deciding it: nothing is sent to the store', async () => {
    const events = t.app.get<EventStore>(EVENT_STORE);
    // Long task names make the snapshot large while the report is small in pods and digests.
    const tasks = Array.from({ length: 20 }, (_, i) => ({
      taskArn: `arn:aws:ecs:task/${'t'.repeat(1000)}-${i}`,
      cluster_name: 'c'.repeat(1000),
      creationTimestamp: 1,
      digests: { [`svc-${i}`]: i.toString(16).padStart(64, '0') },
    }));
    const append = events.append.bind(events);
    const appended: string[] = [];
    events.append = ((stream: string, ...rest: unknown[]) => {
      appended.push(stream);
      return (append as (...a: unknown[]) => unknown)(stream, ...rest);
    }) as typeof events.append;
    try {
      const big = await t.http.put('/api/v2/environments/acme/tasks/report/ECS').send({ artifacts: tasks });
      assert.equal(big.status, 413, big.text);
      assert.deepEqual(big.body, {
        message:
          "Request too large: the events it would record exceed the event store's limit of 20000 bytes per write",
      });
      assert.deepEqual(appended, [], 'no append was tried');
      const small = await t.http
        .put('/api/v2/environments/acme/tasks/report/ECS')
        .send({ artifacts: tasks.slice(0, 2) });
      assert.equal(small.status, 201, small.text);
      assert.deepEqual(appended, ['environment-acme/tasks']);
    } finally {
      events.append = append;
    }
  });
});
