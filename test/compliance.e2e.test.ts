import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Mode, startApp, TestApp } from './support/app';
import { eventually } from './support/processes';

const SCHEMA = '_schema: https://kosli.com/schemas/policy/environment/v1\n';
const NEEDS_TESTS = `${SCHEMA}artifacts:
  provenance:
    required: true
  attestations:
    - name: unit-tests
      type: junit
`;
const PROVENANCE_ONLY = `${SCHEMA}artifacts:
  provenance:
    required: true
`;
const FINGERPRINT = 'c0'.repeat(32);

interface Row {
  event_type: string;
  compliant: boolean;
  description: string;
  snapshot_index: number;
}

/**
 * Environment `state` between reports: attaching, detaching, a new policy
 * version, an attestation and a flow's tags each re-assess what runs, and
 * every change is an event the audit log shows.
 */
for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`environment compliance kept current (${mode} mode)`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp({ mode });
    });
    after(async () => t.close());

    const upload = (name: string, yaml: string, comment: string) =>
      t.http
        .put('/api/v2/policies/acme')
        .field('payload', JSON.stringify({ name, description: 'tests', comment, type: 'env' }))
        .attach('policy_file.0', Buffer.from(yaml), 'policy.yml');
    const junit = (failures: number) =>
      t.http
        .post('/api/v2/attestations/acme/pay/trail/b1/junit')
        .send({
          attestation_name: 'unit-tests',
          artifact_fingerprint: FINGERPRINT,
          junit_results: [{ name: 'suite', tests: 3, failures, errors: 0 }],
        })
        .expect(201);
    const state = () => t.http.get('/api/v2/environments/acme/live').then((r) => r.body.state as boolean);
    /** Waits for `state` to become `expected` (the re-assessment follows the write that caused it). */
    const stateBecomes = (expected: boolean) => eventually(state, (s) => s === expected);
    const events = () => t.http.get('/api/v2/environments/acme/live/events').then((r) => r.body as Row[]);

    it('flips state as policies, attestations, versions and tags change, and logs each change', async () => {
      await t.http
        .put('/api/v2/flows/acme')
        .send({ name: 'pay', tags: { tier: '1' } })
        .expect(201);
      await t.http.put('/api/v2/trails/acme/pay').send({ name: 'b1' }).expect(201);
      await t.http
        .post('/api/v2/artifacts/acme/pay')
        .send({ fingerprint: FINGERPRINT, filename: 'pay:1', trail_name: 'b1' })
        .expect(201);
      await t.http.put('/api/v2/environments/acme').send({ name: 'live', type: 'K8S' }).expect(201);
      await t.http
        .put('/api/v2/environments/acme/live/report/K8S')
        .send({
          artifacts: [
            {
              creationTimestamp: 1_790_000_000,
              digests: { 'pay:1': `sha256:${FINGERPRINT}` },
              namespace: 'pay',
              podName: 'pay-1',
            },
          ],
        })
        .expect(201);
      // No policy: judged by its trail, which is incomplete until something is attested.
      assert.equal(await state(), false);
      await t.http
        .post('/api/v2/attestations/acme/pay/trail/b1/generic')
        .send({ attestation_name: 'build', is_compliant: true })
        .expect(201);
      await stateBecomes(true);

      await upload('needs-tests', NEEDS_TESTS, 'junit required').expect(201);
      await t.http
        .post('/api/v2/environments/acme/live/policies')
        .send({ policy_names: ['needs-tests'] })
        .expect(200);
      await stateBecomes(false);

      await junit(0);
      await stateBecomes(true);

      await junit(2); // the failing run replaces the passing one
      await stateBecomes(false);

      await upload('needs-tests', PROVENANCE_ONLY, 'provenance is enough').expect(200);
      await stateBecomes(true);

      // Without the policy, the artifact is judged by its trail again, whose junit now fails.
      await t.http
        .delete('/api/v2/environments/acme/live/policies')
        .send({ policy_names: ['needs-tests'] })
        .expect(200);
      await stateBecomes(false);

      const rows = (await events()).filter((r) => r.event_type === 'changed');
      assert.deepEqual(
        rows.map((r) => [r.compliant, r.snapshot_index, r.description.replace(/ \(.*$/, '')]),
        [
          [true, 1, 'pay:1 re-assessed as compliant after attestation_reported'],
          [false, 1, 'pay:1 re-assessed as non-compliant after policies_attached'],
          [true, 1, 'pay:1 re-assessed as compliant after attestation_reported'],
          [false, 1, 'pay:1 re-assessed as non-compliant after attestation_reported'],
          [true, 1, 'pay:1 re-assessed as compliant after policy_version_added'],
          [false, 1, 'pay:1 re-assessed as non-compliant after policies_detached'],
        ],
      );
      assert.match(rows[0].description, /\(trail pay\/b1\); environment now compliant$/);
      assert.match(rows[1].description, /needs-tests: attestation 'unit-tests' of type junit is missing/);
      assert.match(rows[1].description, /environment now non-compliant$/);
      assert.match(rows[4].description, /\(policy needs-tests\)/);

      const csv = (await t.http.get('/api/v2/environments/acme/live/auditlog?event_types=changed')).text;
      assert.equal(csv.trim().split('\n').length, 1 + rows.length);
      assert.match(csv, /re-assessed as compliant after policy_version_added/);
    });

    it('re-assesses when a flow’s tags change what a policy asks of it', async () => {
      const risky = `${SCHEMA}artifacts:
  attestations:
    - name: pen-test
      type: generic
      if: \${{ flow.tags.tier == "0" }}
`;
      await upload('tier-zero', risky, 'pen tests for tier 0').expect(201);
      await t.http
        .post('/api/v2/environments/acme/live/policies')
        .send({ policy_names: ['tier-zero'] })
        .expect(200);
      await junit(0);
      await stateBecomes(true);
      await t.http
        .patch('/api/v2/tags/acme/flow/pay')
        .send({ set_tags: { tier: '0' } })
        .expect(200);
      await stateBecomes(false);
      const last = (await events()).at(-1)!;
      assert.equal(last.event_type, 'changed');
      assert.match(last.description, /after tags_changed \(flow pay\).*pen-test/);
    });

    it('changes nothing when a re-assessment finds the same (no event without a change)', async () => {
      const before = (await events()).length;
      await t.http
        .post('/api/v2/attestations/acme/pay/trail/b1/generic')
        .send({ attestation_name: 'notes', is_compliant: true })
        .expect(201);
      // A later write that is re-assessed too: once its change shows, the first one has been judged.
      await t.http
        .post('/api/v2/attestations/acme/pay/trail/b1/generic')
        .send({ attestation_name: 'pen-test', is_compliant: true, artifact_fingerprint: FINGERPRINT })
        .expect(201);
      await stateBecomes(true);
      const rows = await events();
      assert.equal(rows.length, before + 1);
      assert.match(rows.at(-1)!.description, /re-assessed as compliant after attestation_reported/);
    });
  });
}
