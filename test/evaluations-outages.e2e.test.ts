import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { Job, Queue } from 'bullmq';
import IORedis from 'ioredis';
import request from 'supertest';
import { evaluationStream, EVALUATIONS_QUEUE } from '#des/evaluations';
import { SqliteEventStore } from '#des/event-store';
import { freePort } from './support/engines';
import { modeEnv, startApp, TestApp } from './support/app';
import { Child, eventually, startProcess, startProjector } from './support/processes';
import { assertDatabaseUnavailable } from './support/outage';
import { readWholeLog } from './support/log';

const ALLOW_GOOD = {
  'policy.rego':
    'package policy\nimport rego.v1\ndefault allow := false\nallow if input.trail.name == "good"\n',
};
const body = (files: Record<string, string> = ALLOW_GOOD) => ({
  context: { trails: [{ flow: 'svc', trail: 'good' }] },
  policy: { files },
});

/** A server-mode deployment with flow `svc` and trail `good`, then closed: its env and admin key. */
async function seeded(extra: NodeJS.ProcessEnv = {}) {
  const env = await modeEnv('server', extra);
  const t = await startApp({ mode: 'server', env });
  await t.http.put('/api/v2/flows/acme').send({ name: 'svc' });
  await t.http.put('/api/v2/trails/acme/svc').send({ name: 'good' });
  await t.close();
  return {
    env,
    auth: t.auth,
    eventsPath: t.config.eventStore.kind === 'sqlite' ? t.config.eventStore.path : '',
  };
}

async function evaluationEventsIn(path: string): Promise<string[]> {
  const store = new SqliteEventStore({ path });
  try {
    const all = await readWholeLog(store);
    // Runs begun (`evaluation_started`) aside: what was requested and what came of it.
    return all
      .filter((e) => e.stream.startsWith('evaluation-') && e.type !== 'evaluation_started')
      .map((e) => e.type);
  } finally {
    await store.close();
  }
}

/** The event types of one evaluation's stream, runs begun (`evaluation_started`) aside. */
async function evaluationHistory(path: string, id: string): Promise<string[]> {
  const store = new SqliteEventStore({ path });
  try {
    const history = await store.readStream(evaluationStream('acme', id));
    return history.map((e) => e.type).filter((type) => type !== 'evaluation_started');
  } finally {
    await store.close();
  }
}

describe('evaluations: outages answer 503 and record nothing', () => {
  it('Redis unreachable: POST answers 503 at once, nothing is recorded; the app (worker role too) starts and stops', async () => {
    const { env, auth, eventsPath } = await seeded();
    const t = await startApp({
      mode: 'server',
      role: 'all',
      env: { ...env, REDIS_URL: `redis://127.0.0.1:${await freePort()}` },
      bootstrap: false,
    });
    try {
      assertDatabaseUnavailable(
        await request(t.server).post('/api/v2/evaluations/acme').set(auth).send(body()),
      );
      assert.deepEqual(await evaluationEventsIn(eventsPath), []);
      // Reads do not need the queue.
      const trail = await request(t.server).get('/api/v2/trails/acme/svc/good').set(auth);
      assert.equal(trail.status, 200);
    } finally {
      await t.close();
    }
  });

  it('event store unreachable: POST answers 503, and no job is queued', async () => {
    const { env, auth } = await seeded();
    const t = await startApp({
      mode: 'server',
      role: 'api',
      env: { ...env, KURRENTDB_URL: `kurrentdb://127.0.0.1:${await freePort()}?tls=false` },
      bootstrap: false,
    });
    try {
      assertDatabaseUnavailable(
        await request(t.server).post('/api/v2/evaluations/acme').set(auth).send(body()),
      );
      const redis = new IORedis(env.REDIS_URL!, { maxRetriesPerRequest: null });
      const queue = new Queue(EVALUATIONS_QUEUE, { connection: redis, prefix: env.DES_QUEUE_PREFIX });
      const counts = await queue.getJobCounts();
      await queue.close();
      redis.disconnect();
      assert.deepEqual(
        Object.entries(counts).filter(([, n]) => n > 0),
        [],
        'no job in the queue',
      );
    } finally {
      await t.close();
    }
  });
});

describe('evaluations: a worker killed mid-job', () => {
  it('is replaced by another that takes the job up again and records exactly one outcome', async () => {
    // About half a second of evaluation, so the first worker is surely killed before it finishes.
    const slow = {
      'policy.rego':
        'package policy\nimport rego.v1\ndefault allow := false\nallow if count({x | some i in numbers.range(1, 500); some j in numbers.range(1, 500); x := (i * j) % 10}) == 10\n',
    };
    // Every process of a deployment shares the lock setting (a stalled check marks its interval in Redis).
    const { env, auth, eventsPath } = await seeded({
      DES_JOB_LOCK_MS: '1000',
      DES_POLICY_BUDGET_MS: '60000',
    });
    const projector = await startProjector(env);
    let first: Child | undefined = startProcess('worker', env);
    let second: Child | undefined;
    let api: TestApp | undefined;
    const connection = new IORedis(env.REDIS_URL!, { maxRetriesPerRequest: null });
    const queue = new Queue(EVALUATIONS_QUEUE, { connection, prefix: env.DES_QUEUE_PREFIX });
    try {
      api = await startApp({ mode: 'server', role: 'api', env, bootstrap: false });
      const posted = await request(api.server).post('/api/v2/evaluations/acme').set(auth).send(body(slow));
      assert.equal(posted.status, 201);
      const id = posted.body.id as string;
      await eventually(
        () => queue.getJobState(id),
        (state) => state === 'active',
        30_000,
      );
      first.process.kill('SIGKILL');
      await first.exited;
      first = undefined;
      assert.deepEqual(
        await evaluationEventsIn(eventsPath),
        ['evaluation_requested'],
        'killed before it finished',
      );

      second = startProcess('worker', env);
      const done = await eventually(
        async () => (await request(api!.server).get(`/api/v2/evaluations/acme/${id}`).set(auth)).body,
        (b) => b.status !== 'pending',
        60_000,
      ).catch(async (error) => {
        const job = await Job.fromId(queue, id);
        throw new Error(
          `${error.message}; job ${JSON.stringify(job?.toJSON())} ${await queue.getJobState(id)}; second worker: ${second?.output()}`,
        );
      });
      assert.deepEqual([done.status, done.result], ['completed', { allow: true, violations: [] }]);
      const job = await Job.fromId(queue, id);
      assert.ok(job && job.attemptsStarted >= 2, `the job was started again (${job?.attemptsStarted})`);
      assert.deepEqual(await evaluationHistory(eventsPath, id), [
        'evaluation_requested',
        'evaluation_completed',
      ]);
    } finally {
      await queue.close();
      connection.disconnect();
      await api?.close();
      await first?.stop();
      await second?.stop();
      await projector.stop();
    }
  });
});

describe('evaluations: none stays pending forever', () => {
  it('embedded: a restart enqueues again every evaluation requested but not finished', async () => {
    const env = await modeEnv('embedded');
    const first = await startApp({ mode: 'embedded', env });
    await first.http.put('/api/v2/flows/acme').send({ name: 'svc' });
    await first.http.put('/api/v2/trails/acme/svc').send({ name: 'good' });
    await first.close();
    // Recorded, but its in-process job died with the process (as after a crash right after the 201).
    const path = (first.config.eventStore as { path: string }).path;
    const log = new SqliteEventStore({ path });
    const head = await log.head();
    const id = randomUUID();
    await log.append(
      evaluationStream('acme', id),
      [
        {
          id: randomUUID(),
          type: 'evaluation_requested',
          data: {
            id,
            requested_at: Date.now() / 1000,
            recorded_at: head.recordedAt,
            recorded_position: head.position,
            context: { trails: [{ flow: 'svc', trail: 'good' }] },
            policy: { files: ALLOW_GOOD },
            params: {},
          },
          metadata: { org: 'acme', actor: { kind: 'service_account', name: 'admin' } },
        },
      ],
      'no_stream',
    );
    await log.close();
    const restarted = await startApp({ mode: 'embedded', env, bootstrap: false });
    try {
      const done = await eventually(
        async () =>
          (await request(restarted.server).get(`/api/v2/evaluations/acme/${id}`).set(first.auth)).body,
        (b) => b.status !== 'pending',
        30_000,
      );
      assert.deepEqual([done.status, done.result], ['completed', { allow: true, violations: [] }]);
    } finally {
      await restarted.close();
    }
  });

  it('server: a job whose workers keep dying is given up by BullMQ and recorded as service_error, once', async () => {
    // Runs far longer than the test: every worker that takes it up is killed mid-job.
    const endless = {
      'policy.rego':
        'package policy\nimport rego.v1\ndefault allow := false\nallow if count([x | some x in numbers.range(1, 3000000000); x % 7 == 3]) > 0\n',
    };
    const { env, auth, eventsPath } = await seeded({
      DES_JOB_LOCK_MS: '1000',
      DES_POLICY_BUDGET_MS: '600000',
    });
    const projector = await startProjector(env);
    let worker: Child | undefined;
    let api: TestApp | undefined;
    const connection = new IORedis(env.REDIS_URL!, { maxRetriesPerRequest: null });
    const queue = new Queue(EVALUATIONS_QUEUE, { connection, prefix: env.DES_QUEUE_PREFIX });
    try {
      api = await startApp({ mode: 'server', role: 'api', env, bootstrap: false });
      const posted = await request(api.server).post('/api/v2/evaluations/acme').set(auth).send(body(endless));
      assert.equal(posted.status, 201);
      const id = posted.body.id as string;
      // maxStalledCount is 2: the third stall makes the next pick-up fail the job for good.
      for (let started = 1; started <= 3; started++) {
        worker = startProcess('worker', env);
        await eventually(
          async () => (await Job.fromId(queue, id))?.attemptsStarted ?? 0,
          (n) => n >= started,
          60_000,
        );
        worker.process.kill('SIGKILL');
        await worker.exited;
      }
      worker = startProcess('worker', env);
      const done = await eventually(
        async () => (await request(api!.server).get(`/api/v2/evaluations/acme/${id}`).set(auth)).body,
        (b) => b.status !== 'pending',
        60_000,
      ).catch(async (error) => {
        const job = await Job.fromId(queue, id);
        throw new Error(
          `${error.message}; job ${JSON.stringify(job?.toJSON())}; worker: ${worker?.output()}`,
        );
      });
      assert.deepEqual(done.error, {
        kind: 'service_error',
        message: 'The evaluation failed on the service side.',
      });
      assert.equal(await queue.getJobState(id), 'failed');
      assert.match((await Job.fromId(queue, id))!.failedReason, /stalled more than allowable limit/);
      assert.deepEqual(await evaluationHistory(eventsPath, id), [
        'evaluation_requested',
        'evaluation_failed',
      ]);
    } finally {
      await queue.close();
      connection.disconnect();
      await api?.close();
      await worker?.stop();
      await projector.stop();
    }
  });
});
