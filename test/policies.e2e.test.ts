import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Mode, startApp, TestApp } from './support/app';

const V1 = `_schema: https://kosli.com/schemas/policy/environment/v1
artifacts:
  provenance:
    required: true
`;
const V2 = `${V1}  attestations:
    - name: dependency-scan
      type: snyk
      if: \${{ flow.tags.risk == "high" }}
`;
const POLICY_FIELDS = [
  'archived',
  'consuming_envs',
  'created_at',
  'created_by',
  'description',
  'events',
  'last_modified_at',
  'name',
  'type',
  'versions',
];

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`policies, endpoint 8 (${mode} mode)`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp({ mode });
    });
    after(async () => t.close());

    /** A curl-style upload: `-F payload=<json> -F policy_file.0=@policy.yml`. */
    const upload = (payload: object | string, yaml: string | Buffer | undefined, part = 'policy_file.0') => {
      const req = t.http
        .put('/api/v2/policies/acme')
        .field('payload', typeof payload === 'string' ? payload : JSON.stringify(payload));
      return yaml === undefined ? req : req.attach(part, Buffer.from(yaml), 'policy.yml');
    };
    const payload = {
      name: 'prod',
      description: 'What may run in production',
      comment: 'first',
      type: 'env',
    };

    it('creates a policy at version 1 (201), with every field of the Policy table', async () => {
      const res = await upload(payload, V1);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.deepEqual(Object.keys(res.body).sort(), POLICY_FIELDS);
      assert.equal(res.body.name, 'prod');
      assert.equal(res.body.type, 'env');
      assert.equal(res.body.archived, false);
      assert.equal(res.body.created_by, 'admin');
      assert.deepEqual(res.body.consuming_envs, []);
      assert.equal(res.body.versions.length, 1);
      assert.deepEqual(
        { ...res.body.versions[0], timestamp: typeof res.body.versions[0].timestamp },
        { version: 1, comment: 'first', created_by: 'admin', timestamp: 'number', policy_yaml: V1 },
      );
      assert.deepEqual(
        res.body.events.map((e: { type: string; user: string; data: object }) => [e.type, e.user, e.data]),
        [['policy_created', 'admin', { version: 1 }]],
      );
    });

    it('adds a version for changed content (200), none for the same content (200)', async () => {
      const changed = await upload({ ...payload, comment: 'snyk when risky' }, V2);
      assert.equal(changed.status, 200);
      assert.deepEqual(
        changed.body.versions.map((v: { version: number; comment: string }) => [v.version, v.comment]),
        [
          [1, 'first'],
          [2, 'snyk when risky'],
        ],
      );
      assert.equal(changed.body.versions[1].policy_yaml, V2);
      assert.deepEqual(
        changed.body.events.map((e: { type: string; data: object }) => [e.type, e.data]),
        [
          ['policy_created', { version: 1 }],
          ['policy_version_added', { version: 2 }],
        ],
      );
      const same = await upload({ ...payload, comment: 'again' }, V2, 'policy_file');
      assert.equal(same.status, 200);
      assert.equal(same.body.versions.length, 2);
      const asText = await t.http
        .put('/api/v2/policies/acme')
        .field('payload', JSON.stringify(payload))
        .field('policy_file', V2);
      assert.equal(asText.status, 200, 'the file may come as the text field policy_file');
      assert.equal(asText.body.versions.length, 2);
      assert.deepEqual((await t.http.get('/api/v2/policies/acme/prod')).body, asText.body);
      const list = await t.http.get('/api/v2/policies/acme');
      assert.deepEqual(
        list.body.map((p: { name: string }) => p.name),
        ['prod'],
      );
    });

    it('answers a malformed multipart body 400, never 500 (a control character in a part header)', async () => {
      const body = Buffer.from(
        '--B\r\nContent-Disposition: form-data; name="a\x1ab"\r\n\r\n{}\r\n' +
          '--B\r\nContent-Disposition: form-data; name="payload"\r\n\r\n{}\r\n--B--\r\n',
        'latin1',
      );
      const res = await t.http
        .put('/api/v2/policies/acme')
        .set('Content-Type', 'multipart/form-data; boundary=B')
        .send(body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.match(res.body.errors.body, /^malformed multipart body: /);
    });

    it('answers 400 naming each bad key of the payload and of the YAML, and each bad expression', async () => {
      const bad = await upload(
        { name: '-x', type: 'ci', colour: 'red' },
        `artifacts:\n  provenance: { required: maybe }\n  attestations:\n    - name: a\n      type: junit\n      if: \${{ flow.name == }}\n`,
      );
      assert.equal(bad.status, 400);
      assert.equal(bad.body.message, 'Input payload validation failed');
      assert.deepEqual(Object.keys(bad.body.errors).sort(), [
        '_schema',
        'artifacts.provenance.required',
        'payload.colour',
        'payload.name',
        'payload.type',
      ]);
      const expression = await upload(
        payload,
        `${V1}  attestations:\n    - name: a\n      type: junit\n      if: \${{ flow.name == }}\n`,
      );
      assert.equal(expression.status, 400);
      assert.match(expression.body.errors['artifacts.attestations[0].if'], /^not a valid expression/);
      const missing = await upload(payload, undefined);
      assert.equal(missing.status, 400);
      assert.deepEqual(Object.keys(missing.body.errors), ['policy_file']);
      const notJson = await upload('{', V1);
      assert.deepEqual(notJson.body.errors, { payload: 'is not valid JSON' });
      const json = await t.http.put('/api/v2/policies/acme').send(payload);
      assert.equal(json.status, 400);
    });

    it('refuses a file of 10 MB + 1 byte with 413 File size exceeds 10MB limit; a large policy is read', async () => {
      const over = await upload(payload, Buffer.alloc(10 * 1024 * 1024 + 1, 'a'));
      assert.equal(over.status, 413);
      assert.deepEqual(over.body, { message: 'File size exceeds 10MB limit' });
      // Read up to the YAML size limit (256 KiB: policies are small documents, parsed on the event loop).
      const comment = `# ${'x'.repeat(250 * 1024)}\n`;
      const exactly = await upload({ ...payload, name: 'big' }, comment + V1);
      assert.equal(exactly.status, 201, JSON.stringify(exactly.body).slice(0, 200));
      const past = await upload({ ...payload, name: 'bigger' }, `# ${'x'.repeat(300 * 1024)}\n${V1}`);
      assert.deepEqual(
        [past.status, past.body],
        [
          413,
          {
            message: 'Policy file exceeds the 256 KiB limit',
            errors: { policy_file: 'a policy is a YAML document of at most 256 KiB' },
          },
        ],
      );
    });

    it('attaches policies to environments and detaches them (consuming_envs, policies)', async () => {
      for (const name of ['prod', 'staging'])
        await t.http.put('/api/v2/environments/acme').send({ name, type: 'K8S' }).expect(201);
      const attached = await t.http
        .post('/api/v2/environments/acme/prod/policies')
        .send({ policy_names: ['prod', 'big'] });
      assert.equal(attached.status, 200);
      assert.deepEqual(attached.body.policies, ['big', 'prod']);
      await t.http
        .post('/api/v2/environments/acme/staging/policies')
        .send({ policy_names: ['prod'] })
        .expect(200);
      const again = await t.http
        .post('/api/v2/environments/acme/prod/policies')
        .send({ policy_names: ['prod'] });
      assert.deepEqual(again.body.policies, ['big', 'prod'], 'attaching again changes nothing');
      assert.deepEqual((await t.http.get('/api/v2/policies/acme/prod')).body.consuming_envs, [
        'prod',
        'staging',
      ]);
      const detached = await t.http
        .delete('/api/v2/environments/acme/prod/policies')
        .send({ policy_names: ['prod'] });
      assert.equal(detached.status, 200);
      assert.deepEqual(detached.body.policies, ['big']);
      assert.deepEqual((await t.http.get('/api/v2/environments/acme/prod')).body.policies, ['big']);
      assert.deepEqual((await t.http.get('/api/v2/policies/acme/prod')).body.consuming_envs, ['staging']);
      assert.deepEqual((await t.http.get('/api/v2/policies/acme/big')).body.consuming_envs, ['prod']);
    });

    it('answers 404 naming an unknown policy or environment, 400 for a bad body', async () => {
      const policy = await t.http
        .post('/api/v2/environments/acme/prod/policies')
        .send({ policy_names: ['prod', 'nope'] });
      assert.equal(policy.status, 404);
      assert.deepEqual(policy.body, {
        message: 'Policy not found',
        errors: { 'policy_names[1]': "no policy 'nope'" },
      });
      const detach = await t.http
        .delete('/api/v2/environments/acme/prod/policies')
        .send({ policy_names: ['nope'] });
      assert.equal(detach.status, 404);
      const env = await t.http
        .post('/api/v2/environments/acme/nowhere/policies')
        .send({ policy_names: ['prod'] });
      assert.equal(env.status, 404);
      assert.deepEqual(env.body, { message: 'Environment not found' });
      const bad = await t.http.post('/api/v2/environments/acme/prod/policies').send({ policy_names: [] });
      assert.equal(bad.status, 400);
      assert.ok(bad.body.errors.policy_names);
    });

    it('lists, on a control, the policies whose attestation rules name it (for_control)', async () => {
      await t.http
        .post('/api/v2/controls/acme')
        .send({ identifier: 'CM-1', name: 'Change management' })
        .expect(201);
      const rule = (control: string) =>
        `${V1}  attestations:\n    - name: review\n      type: pull_request\n      for_control: ${control}\n`;
      await upload({ ...payload, name: 'reviewed' }, rule('CM-1')).expect(201);
      await upload({ ...payload, name: 'other' }, rule('CM-2')).expect(201);
      assert.deepEqual((await t.http.get('/api/v2/controls/acme/CM-1')).body.policies_referencing, [
        'reviewed',
      ]);
      await upload({ ...payload, name: 'other', comment: 'now CM-1 too' }, rule('CM-1')).expect(200);
      const list = await t.http.get('/api/v2/controls/acme');
      assert.deepEqual(list.body[0].policies_referencing, ['other', 'reviewed']);
    });

    it('judges each snapshot by the attached policies: decisions and reasons, and the state', async () => {
      const F1 = 'f1'.repeat(32);
      const F2 = 'f2'.repeat(32);
      const F3 = 'f3'.repeat(32);
      const pod = (image: string, fingerprint: string) => ({
        creationTimestamp: 1_790_000_000,
        digests: { [image]: `sha256:${fingerprint}` },
        namespace: 'shop',
        podName: `${image.replace(/\W/g, '-')}-1`,
      });
      await t.http
        .put('/api/v2/flows/acme')
        .send({ name: 'shop', tags: { risk: 'high' } })
        .expect(201);
      await t.http.put('/api/v2/trails/acme/shop').send({ name: 'b1' }).expect(201);
      for (const [fingerprint, filename] of [
        [F1, 'shop:1'],
        [F3, 'shop-worker:1'],
      ])
        await t.http
          .post('/api/v2/artifacts/acme/shop')
          .send({ fingerprint, filename, trail_name: 'b1' })
          .expect(201);
      const rules = `artifacts:
  provenance:
    required: true
    exceptions:
      - if: \${{ matches(artifact.name, "^datadog/") }}
  attestations:
    - name: unit-tests
      type: junit
      if: \${{ flow.tags.risk == "high" }}
`;
      await upload(
        { ...payload, name: 'needs-tests' },
        `_schema: https://kosli.com/schemas/policy/environment/v1\n${rules}`,
      ).expect(201);
      await t.http.put('/api/v2/environments/acme').send({ name: 'cluster', type: 'K8S' }).expect(201);
      await t.http
        .post('/api/v2/environments/acme/cluster/policies')
        .send({ policy_names: ['needs-tests'] })
        .expect(200);

      const report = (...pods: object[]) =>
        t.http.put('/api/v2/environments/acme/cluster/report/K8S').send({ artifacts: pods }).expect(201);
      const decisions = async () => {
        const snapshot = (await t.http.get('/api/v2/environments/acme/cluster/snapshots/-1')).body;
        const byName = Object.fromEntries(
          snapshot.artifacts.map(
            (a: { artifact_name: string; compliant: boolean; policy_decision: object }) => [
              a.artifact_name,
              [a.compliant, a.policy_decision],
            ],
          ),
        );
        return { snapshot: snapshot.compliant, byName };
      };
      await report(pod('shop:1', F1), pod('datadog/agent:7', F2));
      const first = await decisions();
      assert.deepEqual(first.byName['shop:1'], [
        false,
        { compliant: false, reasons: ["needs-tests: attestation 'unit-tests' of type junit is missing"] },
      ]);
      assert.deepEqual(first.byName['datadog/agent:7'], [true, { compliant: true, reasons: [] }]);
      assert.equal(first.snapshot, false);
      assert.equal((await t.http.get('/api/v2/environments/acme/cluster')).body.state, false);

      await t.http
        .post('/api/v2/attestations/acme/shop/trail/b1/junit')
        .send({
          attestation_name: 'unit-tests',
          junit_results: [{ name: 's', tests: 3, failures: 0, errors: 0 }],
        })
        .expect(201);
      await report(pod('shop:1', F1), pod('datadog/agent:7', F2), pod('shop-worker:1', F3));
      const second = await decisions();
      assert.deepEqual(second.byName['shop:1'], [true, { compliant: true, reasons: [] }]);
      assert.deepEqual(second.byName['shop-worker:1'], [true, { compliant: true, reasons: [] }]);
      assert.equal(second.snapshot, true);
      assert.equal((await t.http.get('/api/v2/environments/acme/cluster')).body.state, true);
    });

    it('replays an upload sent again with its Idempotency-Key, and refuses the key with another file', async () => {
      const key = { 'Idempotency-Key': `upload-${mode}` };
      const first = await upload({ ...payload, name: 'keyed' }, V1).set(key);
      assert.equal(first.status, 201);
      const again = await upload({ ...payload, name: 'keyed' }, V1).set(key);
      assert.deepEqual([again.status, again.body], [201, first.body]);
      const otherFile = await upload({ ...payload, name: 'keyed' }, V2).set(key);
      assert.equal(otherFile.status, 422);
      assert.equal(otherFile.body.message, 'This Idempotency-Key was used with a different request');
      const versions = (await t.http.get('/api/v2/policies/acme/keyed')).body.versions;
      assert.equal(versions.length, 1, 'the refused upload recorded nothing');
    });

    it('answers 404 Policy not found for an unknown policy', async () => {
      const res = await t.http.get('/api/v2/policies/acme/nope');
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { message: 'Policy not found' });
    });
  });
}
