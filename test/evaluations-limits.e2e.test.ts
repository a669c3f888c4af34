import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import request from 'supertest';
import { evaluationStream } from '#des/evaluations';
import { type EventStore, SqliteEventStore } from '#des/event-store';
import { EVENT_STORE } from '#des/platform';
import { freePort } from './support/engines';
import { modeEnv, startApp, type TestApp } from './support/app';
import { type Child, eventually, startProcess } from './support/processes';

/** What the author sent, scaled down: each attestation carries this many bytes of its own. */
const ATTESTATION_BYTES = 40_000;
/** Three attestations fit (once), eight do not. */
const INPUT_LIMIT = 300_000;
const ONE_TRAIL = `package policy
import rego.v1
default allow := false
allow if count(input.trails) == 1
`;
const ENDLESS = `package policy
import rego.v1
default allow := false
allow if count([x | some x in numbers.range(1, 3000000000); x % 7 == 3]) > 0
`;

const body = (trail: string, times: number, rego = ONE_TRAIL) => ({
  context: { trails: Array.from({ length: times }, () => ({ flow: 'svc', trail })) },
  policy: { files: { 'policy.rego': rego } },
});

/** A trail with `attestations` generic attestations of ATTESTATION_BYTES each. */
async function bigTrail(http: TestApp['http'], trail: string, attestations: number): Promise<void> {
  await http.put('/api/v2/trails/acme/svc').send({ name: trail }).expect(201);
  for (let i = 0; i < attestations; i++) {
    await http
      .post(`/api/v2/attestations/acme/svc/trail/${trail}/generic`)
      .send({ attestation_name: `blob-${i}`, user_data: { blob: 'x'.repeat(ATTESTATION_BYTES) } })
      .expect(201);
  }
}

async function evaluationTypes(events: EventStore, id: string): Promise<string[]> {
  return (await events.readStream(evaluationStream('acme', id))).map((e) => e.type);
}

describe('evaluations: the input an evaluation assembles is bounded', () => {
  it('a trail listed six times is assembled once; one over the limit is refused 413 at POST, nothing recorded', async () => {
    const t = await startApp({
      mode: 'embedded',
      env: await modeEnv('embedded', { DES_EVALUATION_INPUT_BYTES: String(INPUT_LIMIT) }),
    });
    try {
      await t.http.put('/api/v2/flows/acme').send({ name: 'svc' }).expect(201);
      await bigTrail(t.http, 'small', 3);
      await bigTrail(t.http, 'huge', 8);
      // Six times 120 kB would pass the limit: the trail is assembled (and counted) once.
      const posted = await t.http.post('/api/v2/evaluations/acme').send(body('small', 6));
      assert.equal(posted.status, 201, posted.text);
      const done = await eventually(
        async () => (await t.http.get(`/api/v2/evaluations/acme/${posted.body.id}`)).body,
        (b) => b.status !== 'pending',
        60_000,
      );
      assert.deepEqual([done.status, done.result], ['completed', { allow: true, violations: [] }]);

      const events = t.app.get<EventStore>(EVENT_STORE);
      const before = (await events.readStreamsByPrefix('evaluation-acme/')).length;
      const refused = await t.http.post('/api/v2/evaluations/acme').send(body('huge', 6));
      assert.equal(refused.status, 413, refused.text);
      assert.match(refused.body.message, new RegExp(`at most ${INPUT_LIMIT} bytes`));
      assert.match(
        refused.body.errors['context.trails'],
        new RegExp(`hold \\d+ bytes, over the evaluation input limit of ${INPUT_LIMIT} bytes`),
      );
      assert.ok(refused.text.length < 1000, 'the refusal echoes nothing of the trails');
      assert.equal((await events.readStreamsByPrefix('evaluation-acme/')).length, before, 'nothing recorded');
    } finally {
      await t.close();
    }
  });

  it('one trail under the limit whose input (it stands there twice) passes it fails naming the limit, its text given up part-made', async () => {
    const t = await startApp({
      mode: 'embedded',
      env: await modeEnv('embedded', { DES_EVALUATION_INPUT_BYTES: String(INPUT_LIMIT) }),
    });
    try {
      await t.http.put('/api/v2/flows/acme').send({ name: 'svc' }).expect(201);
      await bigTrail(t.http, 'middle', 5);
      // 200 kB stored: accepted; as `trails[0]` and as `trail`, 400 kB of input.
      const posted = await t.http.post('/api/v2/evaluations/acme').send(body('middle', 1));
      assert.equal(posted.status, 201, posted.text);
      const done = await eventually(
        async () => (await t.http.get(`/api/v2/evaluations/acme/${posted.body.id}`)).body,
        (b) => b.status !== 'pending',
        60_000,
      );
      assert.equal(done.status, 'failed', JSON.stringify(done));
      assert.equal(done.error.kind, 'policy_error');
      const made = new RegExp(
        `^the trails of this evaluation make an input of more than (\\d+) bytes, over the evaluation input limit of ${INPUT_LIMIT} bytes$`,
      ).exec(done.error.message);
      assert.ok(made, done.error.message);
      assert.ok(
        Number(made[1]) > INPUT_LIMIT && Number(made[1]) < 2 * INPUT_LIMIT,
        'given up once past the limit, not made whole',
      );
      // Listed with another trail, each stands once: the same trail fits.
      await bigTrail(t.http, 'small', 1);
      const both = await t.http.post('/api/v2/evaluations/acme').send({
        context: {
          trails: [
            { flow: 'svc', trail: 'middle' },
            { flow: 'svc', trail: 'small' },
          ],
        },
        policy: { files: { 'policy.rego': 'package policy\nimport rego.v1\ndefault allow := true\n' } },
      });
      assert.equal(both.status, 201, both.text);
      const completed = await eventually(
        async () => (await t.http.get(`/api/v2/evaluations/acme/${both.body.id}`)).body,
        (b) => b.status !== 'pending',
        60_000,
      );
      assert.deepEqual(
        [completed.status, completed.result?.allow],
        ['completed', true],
        JSON.stringify(completed),
      );
    } finally {
      await t.close();
    }
  });

  it('an evaluation over the limit that is already pending (the crash of the issue) fails once at start, naming the limit', async () => {
    const env = await modeEnv('embedded');
    const first = await startApp({ mode: 'embedded', env });
    await first.http.put('/api/v2/flows/acme').send({ name: 'svc' }).expect(201);
    await bigTrail(first.http, 'huge', 8);
    await first.close();
    // Accepted before the limit was set: the service died under it, and again at every start.
    const path = (first.config.eventStore as { path: string }).path;
    const log = new SqliteEventStore({ path });
    const head = await log.head();
    const id = randomUUID();
    const request = body('huge', 6);
    await log.append(
      evaluationStream('acme', id),
      [
        {
          id: randomUUID(),
          type: 'evaluation_requested',
          data: {
            id,
            requested_at: head.recordedAt,
            recorded_at: head.recordedAt,
            recorded_position: head.position,
            ...request,
            params: {},
          },
          metadata: { org: 'acme', actor: { kind: 'service_account', name: 'admin' } },
        },
      ],
      'no_stream',
    );
    await log.close();
    const restarted = await startApp({
      mode: 'embedded',
      env: { ...env, DES_EVALUATION_INPUT_BYTES: String(INPUT_LIMIT) },
      bootstrap: false,
      key: first.key,
    });
    try {
      const done = await eventually(
        async () => (await restarted.http.get(`/api/v2/evaluations/acme/${id}`)).body,
        (b) => b.status !== 'pending',
        60_000,
      );
      assert.equal(done.status, 'failed');
      assert.equal(done.error.kind, 'policy_error');
      assert.match(
        done.error.message,
        new RegExp(
          `^the trails of this evaluation hold \\d+ bytes, over the evaluation input limit of ${INPUT_LIMIT} bytes$`,
        ),
      );
      assert.deepEqual(await evaluationTypes(restarted.app.get(EVENT_STORE), id), [
        'evaluation_requested',
        'evaluation_started',
        'evaluation_failed',
      ]);
    } finally {
      await restarted.close();
    }
  });
});

describe('evaluations: a run that keeps killing its process is not run forever', () => {
  const started: Child[] = [];
  after(() => started.forEach((c) => c.process.kill('SIGKILL')));

  /** The embedded service as `npm start` runs it, on its own data directory. */
  async function service(dataDir: string, port: number): Promise<Child> {
    const child = startProcess('api', {
      DES_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      DES_ORG: 'acme',
      DES_EVALUATION_MAX_STARTS: '2',
      DES_POLICY_BUDGET_MS: '600000',
    });
    started.push(child);
    await eventually(
      async () => child.output(),
      (o) => /on http:\/\/127\.0\.0\.1:\d+\/api\/v2/.test(o),
      60_000,
    );
    return child;
  }

  /** How many runs of the evaluation the log records as begun. */
  async function runsBegun(dataDir: string, id: string): Promise<string[]> {
    const log = new SqliteEventStore({ path: join(dataDir, 'events.db') });
    try {
      return (await log.readStream(evaluationStream('acme', id))).map((e) => e.type);
    } finally {
      await log.close();
    }
  }

  it('embedded: killed twice mid-evaluation, the next start records it failed instead of running it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'des-eval-crash-'));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    let child = await service(dataDir, port);
    const key = child.output().match(/des_[A-Za-z0-9_-]{32}/)![0];
    const auth = { Authorization: `Bearer ${key}` };
    await request(base).put('/api/v2/flows/acme').set(auth).send({ name: 'svc' }).expect(201);
    await request(base).put('/api/v2/trails/acme/svc').set(auth).send({ name: 'good' }).expect(201);
    const posted = await request(base)
      .post('/api/v2/evaluations/acme')
      .set(auth)
      .send(body('good', 1, ENDLESS));
    assert.equal(posted.status, 201, posted.text);
    const id = posted.body.id as string;
    for (let run = 1; run <= 2; run++) {
      // The run has begun (recorded), and the policy spins: the process dies under it.
      await eventually(
        () => runsBegun(dataDir, id),
        (types) => types.filter((t) => t === 'evaluation_started').length >= run,
        60_000,
      );
      child.process.kill('SIGKILL');
      await child.exited;
      child = await service(dataDir, port);
    }
    const done = await eventually(
      async () => (await request(base).get(`/api/v2/evaluations/acme/${id}`).set(auth)).body,
      (b) => b.status !== 'pending',
      60_000,
    );
    assert.deepEqual(done.error, {
      kind: 'service_error',
      message: 'the evaluation was interrupted 2 times (its runs never finished); it is not run again',
    });
    await child.stop();
    assert.deepEqual(await runsBegun(dataDir, id), [
      'evaluation_requested',
      'evaluation_started',
      'evaluation_started',
      'evaluation_failed',
    ]);
    // A third start runs nothing: the evaluation stays failed, once.
    child = await service(dataDir, port);
    assert.equal((await request(base).get(`/api/v2/evaluations/acme/${id}`).set(auth)).body.status, 'failed');
    await child.stop();
    assert.equal((await runsBegun(dataDir, id)).length, 4);
  });
});
