import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verifySignature } from '#des/actions';
import { Mode, modeEnv, startApp, TestApp } from './support/app';
import { APPS, eventually } from './support/processes';
import { Receiver, type Received } from './support/receiver';

const ACTION_FIELDS = [
  'created_at',
  'created_by',
  'environments',
  'flows',
  'is_created_from_slack_app',
  'is_failing',
  'last_failure_timestamp',
  'last_modified_at',
  'last_success_timestamp',
  'name',
  'number',
  'targets',
  'triggers',
  'type',
];
const ALL_TRIGGERS = [
  'ON_STARTED_ARTIFACT',
  'ON_EXITED_ARTIFACT',
  'ON_CHANGED_ARTIFACT',
  'ON_NON_COMPLIANT_ENV',
  'ON_COMPLIANT_ENV',
];
const pod = (image: string, fingerprint: string) => ({
  creationTimestamp: 1_790_000_000,
  digests: { [image]: `sha256:${fingerprint}` },
  namespace: 'shop',
  podName: `${image.replace(/\W/g, '-')}-1`,
});

/** Every delivery carries a valid signature of its exact body, made with `secret` at its timestamp. */
function assertSigned(received: Received[], secret: string): void {
  for (const r of received) {
    const timestamp = Number(r.headers['x-signature-timestamp']);
    const header = String(r.headers['x-signature-256']);
    assert.ok(
      verifySignature(secret, timestamp, r.body, header, Math.floor(Date.now() / 1000)),
      `a delivery's signature does not verify: ${header}`,
    );
  }
}

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`actions, endpoint 10 (${mode} mode)`, () => {
    let t: TestApp;
    let env: NodeJS.ProcessEnv;
    const receiver = new Receiver();
    let url: string;
    before(async () => {
      url = await receiver.start();
      env = await modeEnv(mode, {
        DES_ACTIONS_ALLOW_PRIVATE_TARGETS: 'true',
        DES_ACTIONS_ATTEMPTS: '3',
        DES_ACTIONS_BACKOFF_MS: '20',
        DES_ACTIONS_TIMEOUT_MS: '400',
      });
      t = await startApp({ mode, env });
      for (const name of ['prod', 'staging'])
        await t.http.put('/api/v2/environments/acme').send({ name, type: 'K8S' }).expect(201);
    });
    after(async () => {
      await t.close();
      await receiver.close();
    });

    const put = (body: object) => t.http.put('/api/v2/actions/acme/environments').send(body);
    const report = (env: string, ...pods: object[]) =>
      t.http.put(`/api/v2/environments/acme/${env}/report/K8S`).send({ artifacts: pods });
    let secret = '';

    it('creates, reads, updates, lists and deletes actions, numbered per organization', async () => {
      const created = await put({
        name: 'watch-prod',
        environments: ['prod'],
        triggers: ALL_TRIGGERS,
        targets: [{ type: 'WEBHOOK', webhook: `${url}/hook` }],
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual(Object.keys(created.body).sort(), [...ACTION_FIELDS, 'secret'].sort());
      assert.equal(created.body.number, 1);
      assert.equal(created.body.type, 'environment');
      assert.equal(created.body.created_by, 'admin');
      assert.equal(created.body.is_failing, false);
      assert.equal(created.body.last_success_timestamp, null);
      assert.match(created.body.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
      secret = created.body.secret;

      const second = await put({
        name: 'staging-starts',
        environments: ['staging'],
        triggers: ['ON_STARTED_ARTIFACT'],
        targets: [{ type: 'WEBHOOK', webhook: `${url}/staging` }],
      });
      assert.deepEqual([second.status, second.body.number], [201, 2]);

      // The same body again: 200, no change; a changed body: 200, the same number, no secret shown.
      const same = await put({
        name: 'staging-starts',
        environments: ['staging'],
        triggers: ['ON_STARTED_ARTIFACT'],
        targets: [{ type: 'WEBHOOK', webhook: `${url}/staging` }],
      });
      assert.equal(same.status, 200);
      assert.equal(same.body.secret, undefined);
      const changed = await put({
        name: 'staging-starts',
        environments: ['staging', 'prod'],
        triggers: ['ON_STARTED_ARTIFACT', 'ON_EXITED_ARTIFACT'],
        targets: [{ type: 'WEBHOOK', webhook: `${url}/staging` }],
      });
      assert.deepEqual([changed.status, changed.body.number], [200, 2]);
      assert.deepEqual(changed.body.environments, ['staging', 'prod']);

      const one = await t.http.get('/api/v2/actions/acme/2');
      assert.deepEqual(Object.keys(one.body).sort(), ACTION_FIELDS);
      assert.deepEqual(one.body.triggers, ['ON_STARTED_ARTIFACT', 'ON_EXITED_ARTIFACT']);
      assert.deepEqual(
        (await t.http.get('/api/v2/actions/acme')).body.map((a: { number: number }) => a.number),
        [1, 2],
      );

      await t.http.delete('/api/v2/actions/acme/2').expect(204);
      const gone = await t.http.get('/api/v2/actions/acme/2');
      assert.deepEqual([gone.status, gone.body], [404, { message: 'Action not found' }]);
      // Its number is never given again.
      const again = await put({
        name: 'staging-starts',
        environments: ['staging'],
        triggers: ['ON_STARTED_ARTIFACT'],
        targets: [{ type: 'WEBHOOK', webhook: `${url}/staging` }],
      });
      assert.deepEqual([again.status, again.body.number], [201, 3]);
      await t.http.delete('/api/v2/actions/acme/3').expect(204);
    });

    it('answers 400 naming each bad field, and 404 for unknown actions and environments', async () => {
      const bad = await put({
        name: '-bad',
        environments: [],
        triggers: ['ON_SOMETHING'],
        targets: [{ type: 'EMAIL', webhook: 'ftp://example.com/x' }],
        extra: 1,
      });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.message, 'Input payload validation failed');
      for (const field of ['name', 'environments', 'triggers', 'targets[0].type', 'extra'])
        assert.ok(bad.body.errors[field], `no error for ${field}: ${JSON.stringify(bad.body.errors)}`);
      const scheme = await put({
        name: 'x',
        environments: ['prod'],
        triggers: ['ON_STARTED_ARTIFACT'],
        targets: [{ type: 'WEBHOOK', webhook: 'ftp://example.com/x' }],
      });
      assert.deepEqual(scheme.body.errors, { 'targets[0].webhook': 'must be an http(s) URL' });
      const unknownEnv = await put({
        name: 'x',
        environments: ['prod', 'nowhere'],
        triggers: ['ON_STARTED_ARTIFACT'],
        targets: [{ type: 'WEBHOOK', webhook: url }],
      });
      assert.equal(unknownEnv.status, 404);
      assert.deepEqual(unknownEnv.body, {
        message: 'Environment not found',
        errors: { 'environments[1]': "environment 'nowhere' does not exist" },
      });
      for (const path of ['/api/v2/actions/acme/99', '/api/v2/actions/acme/abc'])
        assert.deepEqual((await t.http.get(path)).body, { message: 'Action not found' });
      assert.equal((await t.http.delete('/api/v2/actions/acme/99')).status, 404);
      assert.equal((await t.http.get('/api/v2/actions/acme/99/deliveries')).status, 404);
    });

    it('notifies a signed webhook of started and exited artifacts and of compliance flips', async () => {
      const A = 'a1'.repeat(32);
      await report('prod', pod('shop:1', A)).expect(201);
      await eventually(
        async () => receiver.received.length,
        (n) => n >= 2,
      );
      await report('prod').expect(201);
      const all = await eventually(
        async () => receiver.received,
        (r) => r.length >= 4,
      );
      assertSigned(all, secret);
      const byType = (type: string) => all.find((r) => r.json.event_type === type)!;
      assert.deepEqual(all.map((r) => r.json.event_type).sort(), [
        'ARTIFACT_EXITED',
        'ARTIFACT_STARTED',
        'ENVIRONMENT_COMPLIANT',
        'ENVIRONMENT_NON_COMPLIANT',
      ]);
      const started = byType('ARTIFACT_STARTED').json;
      assert.deepEqual(Object.keys(started).sort(), [
        'artifact',
        'description',
        'environment',
        'event_type',
        'org',
        'snapshot',
        'timestamp',
        'version',
      ]);
      assert.equal(started.org, 'acme');
      assert.equal(started.environment, 'prod');
      assert.equal(started.description, 'shop:1: 1 instance started running in prod');
      assert.deepEqual(started.snapshot, {
        index: 1,
        status: 'non-compliant',
        api_url: '/api/v2/environments/acme/prod/snapshots/1',
      });
      assert.deepEqual(started.artifact, {
        name: 'shop:1',
        fingerprint: A,
        instances: 1,
        status: 'non-compliant',
        provenance: [],
      });
      assert.equal(byType('ENVIRONMENT_NON_COMPLIANT').json.artifact, null);
      assert.equal(byType('ENVIRONMENT_COMPLIANT').json.description, 'prod is now compliant');
      assert.equal(new Set(all.map((r) => r.headers['x-des-delivery'])).size, 4, 'one delivery id each');

      // The read models may still be applying the last deliveries' outcomes: wait for all four.
      const deliveries = await eventually(
        () => t.http.get('/api/v2/actions/acme/1/deliveries').then((r) => r.body),
        (b) =>
          b.total_count === 4 && b.deliveries?.every((d: { status: string }) => d.status === 'delivered'),
      );
      assert.equal(deliveries.total_count, 4);
      assert.equal(deliveries.deliveries[0].attempts.length, 1);
      assert.equal(deliveries.deliveries[0].attempts[0].outcome, 'delivered');
      assert.equal(deliveries.deliveries[0].attempts[0].status_code, 200);
      const action = (await t.http.get('/api/v2/actions/acme/1')).body;
      assert.equal(action.is_failing, false);
      assert.equal(typeof action.last_success_timestamp, 'number');
      // The staging action was deleted: nothing went to it.
      assert.equal(
        all.some((r) => r.json.environment === 'staging'),
        false,
      );
    });

    it('retries a failing target (500, then no answer), dead-letters it, and a redelivery clears is_failing', async () => {
      receiver.received.length = 0;
      receiver.answer(500, 'hang', 'hang');
      await put({
        name: 'starts-only',
        environments: ['prod'],
        triggers: ['ON_STARTED_ARTIFACT'],
        targets: [{ type: 'WEBHOOK', webhook: `${url}/starts` }],
      }).expect(201);
      // Only this action's notification is made to fail: the first one to arrive.
      await t.http.delete('/api/v2/actions/acme/1').expect(204);
      await report('prod', pod('shop:2', 'b2'.repeat(32))).expect(201);
      const action = await eventually(
        () => t.http.get('/api/v2/actions/acme/4').then((r) => r.body),
        (a) => a.is_failing === true,
      );
      assert.equal(typeof action.last_failure_timestamp, 'number');
      const dead = await eventually(
        () => t.http.get('/api/v2/actions/acme/4/deliveries').then((r) => r.body.deliveries[0]),
        (d) => d?.status === 'dead_lettered',
      );
      assert.deepEqual(
        dead.attempts.map((a: { outcome: string; error: string | null }) => [a.outcome, a.error]),
        [
          ['failed', 'the target answered 500'],
          ['failed', 'no answer within 400 ms'],
          ['dead_lettered', 'no answer within 400 ms'],
        ],
      );
      assert.equal(receiver.received.length, 3);

      // The receiver recovers; the dead letter is sent again (the CLI in embedded mode, the API in server mode).
      if (mode === 'embedded') {
        const run = spawnSync(
          process.execPath,
          [join(APPS, 'cli/src/main.js'), 'actions', 'redeliver', 'acme', '4', dead.id],
          { env: { ...process.env, ...env }, encoding: 'utf8' },
        );
        assert.equal(run.status, 0, run.stderr);
        assert.match(run.stdout, /will be sent again \(round 2\)/);
      } else {
        await t.http.post(`/api/v2/actions/acme/4/deliveries/${dead.id}/redeliver`).expect(202);
      }
      const delivered = await eventually(
        () => t.http.get('/api/v2/actions/acme/4/deliveries').then((r) => r.body.deliveries[0]),
        (d) => d?.status === 'delivered',
      );
      assert.equal(delivered.round, 2);
      assert.equal(delivered.attempts.at(-1).outcome, 'delivered');
      assert.equal((await t.http.get('/api/v2/actions/acme/4')).body.is_failing, false);
      assert.equal(receiver.received.length, 4);
      assert.equal(receiver.received[3].body, receiver.received[0].body, 'the same facts, sent again');
      const metrics = (await t.http.get('/metrics')).text;
      assert.match(metrics, /des_notification_deliveries_total\{target="WEBHOOK",outcome="failed"\} 2/);
      assert.match(
        metrics,
        /des_notification_deliveries_total\{target="WEBHOOK",outcome="dead_lettered"\} 1/,
      );
      assert.match(metrics, /des_notification_dead_letters_total 1/);
      assert.match(metrics, /des_notification_delivery_seconds_count\{target="WEBHOOK"\} \d+/);
      // Redelivering what was delivered is refused, for good (not 409, which clients retry).
      const twice = await t.http.post(`/api/v2/actions/acme/4/deliveries/${dead.id}/redeliver`);
      assert.equal(twice.status, 400);
    });

    it('signs with the new secret once it is rotated', async () => {
      receiver.received.length = 0;
      const rotated = await t.http.post('/api/v2/actions/acme/4/secret').expect(200);
      assert.notEqual(rotated.body.secret, secret);
      await report('prod', pod('shop:2', 'b2'.repeat(32)), pod('cart:7', 'c3'.repeat(32))).expect(201);
      const received = await eventually(
        async () => receiver.received,
        (r) => r.length >= 1,
      );
      assertSigned(received, rotated.body.secret);
      assert.throws(() => assertSigned(received, secret));
    });

    it('tells a SLACK target the same facts as a Slack message', async () => {
      receiver.received.length = 0;
      await put({
        name: 'slack-staging',
        environments: ['staging'],
        triggers: ['ON_STARTED_ARTIFACT'],
        targets: [{ type: 'SLACK', webhook: `${url}/services/T000/B000/XXXX` }],
      }).expect(201);
      await report('staging', pod('web:3', 'f6'.repeat(32))).expect(201);
      const [message] = await eventually(
        async () => receiver.received,
        (r) => r.length >= 1,
      );
      assert.equal(message.json.text, 'web:3: 1 instance started running in staging');
      const blocks = message.json.blocks as { type: string; fields?: { text: string }[] }[];
      assert.deepEqual(
        blocks[1].fields!.map((f) => f.text),
        [
          '*Environment:* staging',
          '*Event:* ARTIFACT_STARTED',
          '*Snapshot:* #1 (non-compliant)',
          '*Artifact:* web:3',
          `*Fingerprint:* ${'f6'.repeat(6)}…`,
        ],
      );
      assert.ok(message.headers['x-signature-256'], 'signed like any target');
    });

    it('sends nothing again when the log is replayed into the read models', async () => {
      const before = receiver.received.length;
      const key = t.key;
      await t.close();
      if (mode === 'server') {
        const run = spawnSync(process.execPath, [join(APPS, 'cli/src/main.js'), 'rebuild'], {
          env: { ...process.env, ...env },
          encoding: 'utf8',
        });
        assert.equal(run.status, 0, run.stderr);
      }
      // Embedded: the restart itself replays the whole log into the in-memory read models.
      t = await startApp({ mode, env, bootstrap: false, key });
      const deliveries = (await t.http.get('/api/v2/actions/acme/4/deliveries').expect(200)).body;
      assert.equal(deliveries.total_count, 2);
      // Something new after the replay is notified, once; nothing from before is sent again.
      await report(
        'prod',
        pod('shop:2', 'b2'.repeat(32)),
        pod('cart:7', 'c3'.repeat(32)),
        pod('new:1', 'd4'.repeat(32)),
      ).expect(201);
      await eventually(
        async () => receiver.received.length,
        (n) => n > before,
      );
      const settled = await eventually(
        () => t.http.get('/api/v2/actions/acme/4/deliveries').then((r) => r.body),
        (b) => b.total_count === 3 && b.deliveries.every((d: { status: string }) => d.status === 'delivered'),
      );
      assert.equal(settled.deliveries[0].payload.artifact.name, 'new:1');
      assert.equal(receiver.received.length, before + 1);
      assert.equal(receiver.received.at(-1)!.json.event_type, 'ARTIFACT_STARTED');
    });
  });
}

describe('actions: targets on private addresses are refused (DES_ACTIONS_ALLOW_PRIVATE_TARGETS unset)', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp({ mode: 'embedded' });
    await t.http.put('/api/v2/environments/acme').send({ name: 'prod', type: 'K8S' }).expect(201);
  });
  after(async () => t.close());

  it('checks the literal address and, for a name, every address it resolves to', async () => {
    const cases: [string, RegExp][] = [
      ['http://127.0.0.1:8080/hook', /resolves to 127\.0\.0\.1 \(loopback\)/],
      ['http://localhost:8080/hook', /localhost resolves to (127\.0\.0\.1|::1) \(loopback\)/],
      ['http://10.1.2.3/hook', /\(private\)/],
      ['http://169.254.169.254/latest/meta-data', /\(linkLocal\)/],
      ['http://[::1]:8080/hook', /\(loopback\)/],
      ['http://[::ffff:192.168.0.1]/hook', /\(private\)/],
      ['https://0.0.0.0/hook', /\(unspecified\)/],
    ];
    for (const [webhook, message] of cases) {
      const res = await t.http.put('/api/v2/actions/acme/environments').send({
        name: 'leaky',
        environments: ['prod'],
        triggers: ['ON_STARTED_ARTIFACT'],
        targets: [{ type: 'WEBHOOK', webhook }],
      });
      assert.equal(res.status, 400, webhook);
      assert.equal(res.body.message, 'Input payload validation failed');
      assert.match(res.body.errors['targets[0].webhook'], message, webhook);
      assert.match(res.body.errors['targets[0].webhook'], /DES_ACTIONS_ALLOW_PRIVATE_TARGETS/);
    }
    assert.deepEqual((await t.http.get('/api/v2/actions/acme')).body, []);
  });

  it('accepts a name that does not resolve yet; each delivery resolves it, fails, and shows in is_failing', async () => {
    const created = await t.http.put('/api/v2/actions/acme/environments').send({
      name: 'dns-later',
      environments: ['prod'],
      triggers: ['ON_STARTED_ARTIFACT'],
      targets: [{ type: 'WEBHOOK', webhook: 'https://hooks.not-yet.invalid/des' }],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await t.http
      .put('/api/v2/environments/acme/prod/report/K8S')
      .send({ artifacts: [pod('shop:9', 'c3'.repeat(32))] })
      .expect(201);
    const action = await eventually(
      () => t.http.get(`/api/v2/actions/acme/${created.body.number}`).then((r) => r.body),
      (a) => a.is_failing === true,
    );
    assert.equal(typeof action.last_failure_timestamp, 'number');
    const deliveries = await t.http.get(`/api/v2/actions/acme/${created.body.number}/deliveries`);
    assert.match(JSON.stringify(deliveries.body), /ENOTFOUND|EAI_AGAIN|not-yet\.invalid/);
  });
});
