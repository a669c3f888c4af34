import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { evaluationStream, EVALUATIONS_QUEUE } from '#des/evaluations';
import { SqliteEventStore } from '#des/event-store';
import { freePort } from './support/engines';
import { modeEnv } from './support/app';
import { type Child, eventually, startProcess, untilLive } from './support/processes';

/**
 * Server mode scaled out on one machine: two API, two projector and two
 * worker processes, each with a data directory of its own and the service
 * key from one file (as pods with a mounted secret), behind a round-robin
 * client.
 */
describe('scale-out: two of every process', () => {
  const children: Child[] = [];
  let env: NodeJS.ProcessEnv;
  const apis: string[] = [];
  let headers: Record<string, string>;
  let turn = 0;
  /** The next API in turn. */
  const next = () => apis[turn++ % apis.length];
  const start = (app: 'api' | 'projector' | 'worker', extra: NodeJS.ProcessEnv = {}, args: string[] = []) => {
    const child = startProcess(
      app,
      {
        ...env,
        DES_DATA_DIR: mkdtempSync(join(tmpdir(), `des-${app}-`)),
        ...extra,
      },
      args,
    );
    children.push(child);
    return child;
  };
  const call = (base: string, method: string, path: string, body?: object) =>
    fetch(`${base}/api/v2${path}`, { method, headers, body: body && JSON.stringify(body) }).then(
      async (r) => ({
        status: r.status,
        body: (await r.json().catch(() => null)) as Record<string, unknown> | null,
      }),
    );
  let projectors: Child[];

  let shared: string;
  before(async () => {
    shared = mkdtempSync(join(tmpdir(), 'des-shared-'));
    writeFileSync(join(shared, 'service-key'), 'a-service-key-shared-by-every-process\n');
    env = await modeEnv('server', {
      // The log every process shares (KurrentDB's place in production).
      EVENT_STORE_URL: `sqlite:${join(shared, 'events.db')}`,
      DES_SERVICE_KEY_FILE: join(shared, 'service-key'),
      DES_PROJECTOR_LEASE_MS: '1500',
      DES_JOB_LOCK_MS: '1000',
      DES_POLICY_BUDGET_MS: '60000',
      LOG_LEVEL: 'info',
    });
    projectors = [start('projector'), start('projector')];
    start('worker');
    const ports = [await freePort(), await freePort()];
    const first = start('api', { PORT: String(ports[0]) }, ['--role=api']);
    await untilLive(first, `http://127.0.0.1:${ports[0]}`);
    const second = start('api', { PORT: String(ports[1]) }, ['--role=api']);
    await untilLive(second, `http://127.0.0.1:${ports[1]}`);
    apis.push(...ports.map((p) => `http://127.0.0.1:${p}`));
    const keyFile = first.output().match(/its API key is in (\S+) /)![1];
    headers = {
      Authorization: `Bearer ${readFileSync(keyFile, 'utf8').trim()}`,
      'Content-Type': 'application/json',
    };
    assert.equal((await call(next(), 'PUT', '/flows/demo', { name: 'scaled' })).status, 201);
  });
  after(async () => {
    for (const c of children) await c.stop();
  });

  it('a write through either API is read back at once through the other (read-your-writes)', async () => {
    for (let i = 0; i < 10; i++) {
      const writer = next();
      const reader = next();
      assert.notEqual(writer, reader);
      const put = await call(writer, 'PUT', '/trails/demo/scaled', {
        name: `rr-${i}`,
        description: `round ${i}`,
      });
      assert.equal(put.status, 201, JSON.stringify(put.body));
      const got = await call(reader, 'GET', `/trails/demo/scaled/rr-${i}`);
      assert.equal(got.status, 200, `trail rr-${i} written through ${writer}, read through ${reader}`);
      assert.equal(got.body!.description, `round ${i}`);
    }
  });

  it('a file attached through one API is served by the other (attachments in shared storage)', async () => {
    const [writer, reader] = [next(), next()];
    const form = new FormData();
    form.set('data_json', JSON.stringify({ attestation_name: 'notes' }));
    form.set('attachment_file', new Blob(['release notes, kept once for every API\n']), 'notes.txt');
    const sent = await fetch(`${writer}/api/v2/attestations/demo/scaled/trail/rr-2/generic`, {
      method: 'POST',
      headers: { Authorization: headers.Authorization },
      body: form,
    });
    assert.equal(sent.status, 201, await sent.text());
    const trail = await call(reader, 'GET', '/trails/demo/scaled/rr-2');
    const [file] = (trail.body!.attestations as { notes: { attachments: { sha256: string }[] } }).notes
      .attachments;
    const got = await fetch(`${reader}/api/v2/trails/demo/scaled/rr-2/attachments/${file.sha256}`, {
      headers: { Authorization: headers.Authorization },
    });
    assert.equal(got.status, 200);
    assert.equal(await got.text(), 'release notes, kept once for every API\n');
  });

  it('SIGKILL of the active projector: the other takes over within the lease, nothing lost or doubled', async () => {
    const active = await eventually(
      async () => projectors.filter((p) => /read models caught up/.test(p.output())),
      (holding) => holding.length === 1,
    );
    const standby = projectors.find((p) => p !== active[0])!;
    active[0].process.kill('SIGKILL');
    await active[0].exited;
    // Writes go on through both APIs; each is answered once the other projector has it (or after the wait's bound).
    for (let i = 0; i < 6; i++)
      assert.equal(
        (
          await call(next(), 'POST', '/attestations/demo/scaled/trail/rr-0/generic', {
            attestation_name: `after-kill-${i}`,
          })
        ).status,
        201,
      );
    await eventually(
      async () => standby.output(),
      (o) => /read models caught up/.test(o),
    );
    // Exactly what was written, once: the trail's timeline counts every event once, through either API.
    for (const base of apis) {
      const trail = await eventually(
        () => call(base, 'GET', '/trails/demo/scaled/rr-0'),
        (r) => r.body?.event_count === 7,
      );
      assert.equal(trail.body!.event_count, 7, 'the trail, then six attestations');
      const events = await call(base, 'GET', '/trails/demo/scaled/rr-0/events?per_page=100');
      assert.equal((events.body!.events as unknown[]).length, 7);
      const trails = await call(base, 'GET', '/trails/demo/scaled');
      assert.equal(JSON.stringify(trails.body).match(/"rr-\d+"/g)?.length, 10, 'ten trails, none twice');
    }
  });

  it('a worker killed mid-job: another takes the job up and it completes once', async () => {
    const connection = new IORedis(env.REDIS_URL!, { maxRetriesPerRequest: null });
    const queue = new Queue(EVALUATIONS_QUEUE, { connection, prefix: env.DES_QUEUE_PREFIX });
    try {
      // About half a second of evaluation, so the worker holding it is surely killed before it finishes.
      const slow =
        'package policy\nimport rego.v1\ndefault allow := false\nallow if count({x | some i in numbers.range(1, 500); some j in numbers.range(1, 500); x := (i * j) % 10}) == 10\n';
      const posted = await call(next(), 'POST', '/evaluations/demo', {
        context: { trails: [{ flow: 'scaled', trail: 'rr-1' }] },
        policy: { files: { 'policy.rego': slow } },
      });
      assert.equal(posted.status, 201, JSON.stringify(posted.body));
      const id = posted.body!.id as string;
      await eventually(
        () => queue.getJobState(id),
        (state) => state === 'active',
        30_000,
      );
      // The only worker so far holds it; a second one is started, then the first is killed.
      const holder = children.find((c) => c.process.spawnargs.some((a) => a.includes('worker/src/main.js')))!;
      start('worker');
      holder.process.kill('SIGKILL');
      await holder.exited;
      const done = await eventually(
        async () => (await call(next(), 'GET', `/evaluations/demo/${id}`)).body!,
        (b) => b.status !== 'pending',
        60_000,
      );
      assert.deepEqual([done.status, done.result], ['completed', { allow: true, violations: [] }]);
      const job = await queue.getJob(id);
      assert.ok(job && job.attemptsStarted >= 2, `the job was started again (${job?.attemptsStarted})`);
      const log = new SqliteEventStore({ path: join(shared, 'events.db') });
      try {
        assert.deepEqual(
          (await log.readStream(evaluationStream('demo', id)))
            .map((e) => e.type)
            .filter((type) => type !== 'evaluation_started'),
          ['evaluation_requested', 'evaluation_completed'],
          'one outcome recorded',
        );
      } finally {
        await log.close();
      }
      // The same outcome, whichever API is asked.
      for (const base of apis)
        assert.equal((await call(base, 'GET', `/evaluations/demo/${id}`)).body!.status, 'completed');
    } finally {
      await queue.close();
      connection.disconnect();
    }
  });
});
