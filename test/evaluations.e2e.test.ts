import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { OrganizationBootstrap } from '#des/accounts';
import { modeEnv, Mode, startApp, TestApp } from './support/app';
import { eventually } from './support/processes';
import { stepInstant } from './support/time-travel';
import type { Jobs } from '#des/jobs';
import { EVENT_STORE, JOBS } from '#des/platform';
import type { EventStore } from '#des/event-store';
import { EVALUATION_ATTEMPTS, EVALUATIONS_QUEUE } from '#des/evaluations';

const junit = (failures: number) => ({
  attestation_name: 'tests',
  junit_results: [{ name: 's', tests: 3, failures, errors: 0 }],
});
const COMPLIANT_ONLY = `package policy
import rego.v1
default allow := false
allow if count(violations) == 0
violations contains sprintf("%s is %s", [t.name, t.compliance_status.status]) if {
  some t in input.trails
  t.compliance_status.status != "COMPLIANT"
}
violations contains "too many trails" if count(input.trails) > data.params.max
`;

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`evaluations (${mode} mode)`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp({ mode, env: await modeEnv(mode, { DES_POLICY_BUDGET_MS: '1500' }) });
      await t.http.put('/api/v2/flows/acme').send({ name: 'svc' });
      for (const [trail, failures] of [
        ['good', 0],
        ['bad', 2],
      ] as const) {
        await t.http.put('/api/v2/trails/acme/svc').send({ name: trail });
        await t.http.post(`/api/v2/attestations/acme/svc/trail/${trail}/junit`).send(junit(failures));
      }
    });
    after(async () => t.close());

    const evaluate = (trails: string[], files: Record<string, string>, params?: unknown) =>
      t.http.post('/api/v2/evaluations/acme').send({
        context: { trails: trails.map((trail) => ({ flow: 'svc', trail })) },
        policy: { files },
        ...(params === undefined ? {} : { params }),
      });
    const finished = async (id: string) =>
      eventually(
        async () => (await t.http.get(`/api/v2/evaluations/acme/${id}`)).body,
        (b) => b.status !== 'pending',
        30_000,
      );

    it('answers 201 pending, then completes with allow and violations (params as data.params)', async () => {
      const res = await evaluate(['good', 'bad'], { 'policy.rego': COMPLIANT_ONLY }, { max: 1 });
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body).sort(), [
        'id',
        'recorded_at',
        'recorded_position',
        'requested_at',
        'status',
      ]);
      assert.equal(res.body.status, 'pending');
      const done = await finished(res.body.id);
      assert.deepEqual(done.result, {
        allow: false,
        violations: ['bad is NON-COMPLIANT', 'too many trails'],
      });
      assert.equal(done.status, 'completed');
      assert.ok(!('error' in done));
      const single = await finished(
        (
          await evaluate(['good'], {
            'policy.rego':
              'package policy\nimport rego.v1\ndefault allow := false\nallow if input.trail.name == "good"\n',
          })
        ).body.id,
      );
      assert.deepEqual(single.result, { allow: true, violations: [] });
    });

    it('evaluates 100 trails with a policy of several files that import each other', async () => {
      const names = Array.from({ length: 100 }, (_, i) => `many-${i}`);
      for (const [i, name] of names.entries()) {
        assert.equal((await t.http.put('/api/v2/trails/acme/svc').send({ name })).status, 201);
        if (i % 10 === 3) {
          const res = await t.http.post(`/api/v2/attestations/acme/svc/trail/${name}/junit`).send(junit(1));
          assert.equal(res.status, 201);
        }
      }
      const res = await evaluate(
        names,
        {
          'policy.rego': `package policy
import rego.v1
import data.lib.compliance
import data.lib.limits
default allow := false
allow if { count(violations) == 0 }
violations contains sprintf("%s failed its tests", [t.name]) if { some t in input.trails; compliance.failing(t) }
violations contains "too few trails" if { not limits.enough(input.trails) }
`,
          'lib/compliance.rego':
            'package lib.compliance\nimport rego.v1\nfailing(t) if t.compliance_status.status == "NON-COMPLIANT"\n',
          'lib/limits.rego':
            'package lib.limits\nimport rego.v1\nenough(trails) if count(trails) == data.params.expected\n',
        },
        { expected: 100 },
      );
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const done = await finished(res.body.id);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.deepEqual(done.result, {
        allow: false,
        violations: names
          .filter((_, i) => i % 10 === 3)
          .map((n) => `${n} failed its tests`)
          .sort(),
      });
    });

    it('judges the trails as they were when the evaluation was requested', async () => {
      await t.http.put('/api/v2/trails/acme/svc').send({ name: 'later' });
      await t.http.post('/api/v2/attestations/acme/svc/trail/later/junit').send(junit(1));
      const log = t.app.get<symbol, EventStore>(EVENT_STORE);
      const headBefore = await log.head();
      const res = await evaluate(['later'], { 'policy.rego': COMPLIANT_ONLY }, { max: 5 });
      assert.equal(res.status, 201);
      // Pinned by the log head's position too, not only by its instant (which later events may share).
      const [requested] = await log.readStream(`evaluation-acme/${res.body.id as string}`);
      const pinned = requested.data.recorded_position as number;
      assert.ok(pinned >= headBefore.position && pinned < requested.position);
      const [atPin] = await log.readAll(pinned - 1, 1);
      assert.deepEqual([atPin.position, atPin.recordedAt], [pinned, requested.data.recorded_at]);
      // Fixed after the request: the pinned instant must not see it.
      await t.http.post('/api/v2/attestations/acme/svc/trail/later/junit').send(junit(0));
      const done = await finished(res.body.id);
      assert.deepEqual(done.result, { allow: false, violations: ['later is NON-COMPLIANT'] });
      const now = await finished(
        (await evaluate(['later'], { 'policy.rego': COMPLIANT_ONLY }, { max: 5 })).body.id,
      );
      assert.equal(now.result.allow, true);
    });

    it('evaluates trails as they were at a past instant (?at=), and says which instant and position it used', async () => {
      await t.http.put('/api/v2/trails/acme/svc').send({ name: 'past' });
      await t.http.post('/api/v2/attestations/acme/svc/trail/past/junit').send(junit(1));
      // The failing attestation's instant (whole microseconds); the fix is recorded after it.
      const then = await stepInstant(t);
      await t.http.post('/api/v2/attestations/acme/svc/trail/past/junit').send(junit(0)); // fixed since
      const log = t.app.get<symbol, EventStore>(EVENT_STORE);
      const res = await t.http.post(`/api/v2/evaluations/acme?at=${then}`).send({
        context: { trails: [{ flow: 'svc', trail: 'past' }] },
        policy: { files: { 'policy.rego': COMPLIANT_ONLY } },
        params: { max: 5 },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.recorded_at, then);
      const pinned = await log.positionAt(Math.round(then * 1_000_000));
      assert.equal(res.body.recorded_position, pinned.position);
      const done = await finished(res.body.id);
      assert.deepEqual(done.result, { allow: false, violations: ['past is NON-COMPLIANT'] });
      assert.equal(done.recorded_position, pinned.position);
      // Before the trail existed: 404; in the future: 400.
      const before = await t.http.post('/api/v2/evaluations/acme?at=1000').send({
        context: { trails: [{ flow: 'svc', trail: 'past' }] },
        policy: { files: { 'policy.rego': COMPLIANT_ONLY } },
      });
      assert.deepEqual([before.status, before.body.message], [404, 'Trail not found']);
      const future = await t.http.post(`/api/v2/evaluations/acme?at=${Math.ceil(then) + 3600}`).send({
        context: { trails: [{ flow: 'svc', trail: 'past' }] },
        policy: { files: { 'policy.rego': COMPLIANT_ONLY } },
      });
      assert.equal(future.status, 400);
      assert.ok(future.body.errors.at);
    });

    it('fails broken policies with policy_error, and runaway ones with timeout', async () => {
      const broken = await finished(
        (await evaluate(['good'], { 'policy.rego': 'package policy\nallow if {\n  input.x ==\n}\n' })).body
          .id,
      );
      assert.equal(broken.status, 'failed');
      assert.equal(broken.error.kind, 'policy_error');
      assert.match(broken.error.message, /policy\.rego:\d+/);
      assert.ok(!('result' in broken));
      const slow =
        'package policy\nimport rego.v1\ndefault allow := false\nallow if count([x | some x in numbers.range(1, 300000000); x % 7 == 3]) > 0\n';
      const timedOut = await finished((await evaluate(['good'], { 'policy.rego': slow })).body.id);
      assert.deepEqual([timedOut.status, timedOut.error.kind], ['failed', 'timeout']);
    });

    it('validates the request exactly, naming each bad path', async () => {
      const rows: [unknown, string[]][] = [
        [
          { context: { trails: [{ flow: 'svc', trail: 'good' }] }, policy: { files: { a: 'x' } }, extra: 1 },
          ['extra'],
        ],
        [
          {
            context: { trails: [{ flow: 'svc', trail: 'good', x: 1 }], more: 1 },
            policy: { files: { a: 'x' } },
          },
          ['context.more', 'context.trails[0].x'],
        ],
        [{ context: { trails: [] }, policy: { files: { a: 'x' } } }, ['context.trails']],
        [
          {
            context: { trails: Array.from({ length: 101 }, () => ({ flow: 'svc', trail: 'good' })) },
            policy: { files: { a: 'x' } },
          },
          ['context.trails'],
        ],
        [
          { context: { trails: [{ flow: '.svc', trail: 'good' }] }, policy: { files: { a: 'x' } } },
          ['context.trails[0].flow'],
        ],
        [{ context: { trails: [{ flow: 'svc', trail: 'good' }] }, policy: { files: {} } }, ['policy.files']],
        [
          { context: { trails: [{ flow: 'svc', trail: 'good' }] }, policy: { files: { a: 7 }, b: 1 } },
          ['policy.b', 'policy.files.a'],
        ],
        [{ policy: { files: { a: 'x' } } }, ['context']],
        [
          {
            context: { trails: [{ flow: 'svc', trail: 'good' }] },
            policy: { files: { 'ok/p.rego': 'x', '../up.rego': 'x', '/abs.rego': 'x' } },
          },
          ['policy.files.../up.rego', 'policy.files./abs.rego'],
        ],
      ];
      for (const [body, paths] of rows) {
        const res = await t.http.post('/api/v2/evaluations/acme').send(body as object);
        assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
        assert.equal(res.body.message, 'Input payload validation failed');
        assert.deepEqual(Object.keys(res.body.errors).sort(), paths.sort(), JSON.stringify(res.body.errors));
      }
    });

    it('counts finished evaluations by outcome and times the jobs in /metrics', async () => {
      const read = async () => {
        const text = (await request(t.server).get('/metrics')).text;
        const value = (pattern: string) =>
          Number(new RegExp(`^${pattern} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
        return {
          completed: value('des_evaluations_finished_total\\{outcome="completed"\\}'),
          policy_error: value('des_evaluations_finished_total\\{outcome="policy_error"\\}'),
          timed: value('des_job_duration_seconds_count\\{queue="evaluations",outcome="completed"\\}'),
        };
      };
      const before = await read();
      const ok = await finished((await evaluate(['good'], { 'policy.rego': COMPLIANT_ONLY })).body.id);
      assert.equal(ok.status, 'completed');
      const broken = await finished(
        (await evaluate(['good'], { 'policy.rego': 'package policy\nallow if {\n' })).body.id,
      );
      assert.equal(broken.error.kind, 'policy_error');
      // The worker counts an outcome once its event is recorded, a moment after the read model shows it.
      const after = await eventually(
        read,
        (m) =>
          m.completed > before.completed &&
          m.policy_error > before.policy_error &&
          m.timed - before.timed >= 2,
        10_000,
      );
      assert.deepEqual(
        [after.completed - before.completed, after.policy_error - before.policy_error],
        [1, 1],
      );
      assert.ok(after.timed - before.timed >= 2, 'both jobs timed (a policy_error job completes)');
    });

    it('answers 404 for an unknown trail and for an unknown evaluation; 403 without the beta feature', async () => {
      const missing = await evaluate(['good', 'ghost'], { 'policy.rego': COMPLIANT_ONLY });
      assert.deepEqual(
        [missing.status, missing.body.message, Object.keys(missing.body.errors)],
        [404, 'Trail not found', ['context.trails[1]']],
      );
      const unknown = await t.http.get('/api/v2/evaluations/acme/no-such-id');
      assert.deepEqual([unknown.status, unknown.body.message], [404, 'Evaluation not found']);
      const plain = await t.app.get(OrganizationBootstrap).createOrganization(`plain${mode}`, [], 5);
      const res = await request(t.server)
        .post(`/api/v2/evaluations/plain${mode}`)
        .set('Authorization', `Bearer ${plain.key}`)
        .send({ context: { trails: [{ flow: 'svc', trail: 'good' }] }, policy: { files: { a: 'x' } } });
      assert.deepEqual(
        [res.status, res.body],
        [403, { message: 'This feature is not enabled for your organization' }],
      );
    });
  });
}

describe('evaluations: a fault on our side', () => {
  it('is retried, then recorded as service_error without our insides', async () => {
    const t = await startApp({
      mode: 'embedded',
      env: await modeEnv('embedded', { OPA_PATH: '/nonexistent/opa' }),
    });
    try {
      await t.http.put('/api/v2/flows/acme').send({ name: 'svc' });
      await t.http.put('/api/v2/trails/acme/svc').send({ name: 'good' });
      const res = await t.http.post('/api/v2/evaluations/acme').send({
        context: { trails: [{ flow: 'svc', trail: 'good' }] },
        policy: { files: { 'policy.rego': 'package policy\ndefault allow := true\n' } },
      });
      assert.equal(res.status, 201);
      const done = await eventually(
        async () => (await t.http.get(`/api/v2/evaluations/acme/${res.body.id}`)).body,
        (b) => b.status !== 'pending',
        30_000,
      );
      assert.deepEqual(done.error, {
        kind: 'service_error',
        message: 'The evaluation failed on the service side.',
      });
      const job = await t.app.get<Jobs>(JOBS).get(EVALUATIONS_QUEUE, res.body.id);
      assert.equal(job?.attemptsMade, EVALUATION_ATTEMPTS, 'tried as many times as allowed first');
    } finally {
      await t.close();
    }
  });
});
