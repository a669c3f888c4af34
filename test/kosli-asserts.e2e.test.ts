import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Mode, startApp, TestApp } from './support/app';

const FP = 'a'.repeat(64);
const DECISION_POLICY = `_schema: https://kosli.com/schemas/policy/environment/v1
artifacts:
  provenance:
    required: true
  attestations:
    - name: decision
      type: decision
      for_control: CTL-1
`;
const OPEN_POLICY = `_schema: https://kosli.com/schemas/policy/environment/v1
artifacts:
  provenance:
    required: true
`;

/**
 * `kosli assert artifact` by scope: its flows, the policies attached to an
 * environment, or named policies; each policy's rules as the CLI prints
 * them (a decision missing or non-compliant for a control).
 */
for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`kosli assert artifact, by flows and by policies (${mode} mode)`, () => {
    let t: TestApp;
    const assertArtifact = async (query: string) =>
      (await t.http.get(`/api/v2/asserts/acme/fingerprint/${FP}?${query}`).expect(200)).body;
    const policy = (name: string, yaml: string) =>
      t.http
        .put('/api/v2/policies/acme')
        .field('payload', JSON.stringify({ name, comment: 'v1', type: 'env' }))
        .attach('policy_file.0', Buffer.from(yaml), 'policy.yml')
        .expect((r) => assert.ok([200, 201].includes(r.status), r.text));

    before(async () => {
      t = await startApp({ mode });
      await t.http.post('/api/v2/controls/acme').send({ identifier: 'CTL-1', name: 'Approval' }).expect(201);
      await policy('needs-decision', DECISION_POLICY);
      await policy('open', OPEN_POLICY);
      await t.http.put('/api/v2/flows/acme').send({ name: 'shop' }).expect(201);
      await t.http
        .post('/api/v2/artifacts/acme/shop')
        .send({ fingerprint: FP, filename: 'app.bin', trail_name: 't1' })
        .expect(201);
      await t.http
        .post('/api/v2/attestations/acme/shop/trail/t1/generic')
        .send({ attestation_name: 'scan' })
        .expect(201);
      for (const name of ['guarded', 'plain'])
        await t.http.put('/api/v2/environments/acme').send({ name, type: 'server' }).expect(201);
      await t.http
        .post('/api/v2/environments/acme/guarded/policies')
        .send({ policy_names: ['needs-decision'] })
        .expect((r) => assert.ok(r.status < 300, r.text));
    });
    after(async () => t.close());

    it('by its flows: compliant, with its page in the Kosli app’s scheme', async () => {
      const body = await assertArtifact('');
      assert.deepEqual([body.compliant, body.scope, body.policy_evaluations], [true, 'flow', []]);
      assert.match(body.html_url, /\/acme\/flows\/shop\/artifacts\/a{64}$/);
    });

    it('by an environment with no policy: its flows decide; it need not run there', async () => {
      const body = await assertArtifact('environment_name=plain');
      assert.deepEqual([body.compliant, body.scope, body.environment], [true, 'environment', 'plain']);
    });

    it('by the policies attached to an environment: a decision for a control missing, then non-compliant', async () => {
      const missing = await assertArtifact('environment_name=guarded');
      assert.equal(missing.compliant, false);
      const [evaluation] = missing.policy_evaluations;
      assert.deepEqual([evaluation.policy_name, evaluation.status], ['needs-decision', 'NON-COMPLIANT']);
      const decisionRule = evaluation.rule_evaluations.find(
        (r: { rule: { type: string } }) => r.rule.type === 'attestation',
      );
      assert.deepEqual(decisionRule.rule.definition, {
        name: 'decision',
        type: 'decision',
        for_control: 'CTL-1',
      });
      assert.deepEqual(
        [decisionRule.ignored, decisionRule.satisfied, decisionRule.resolutions],
        [false, false, [{ type: 'missing_attestation', context: { for_control: 'CTL-1' } }]],
      );

      await t.http
        .post('/api/v2/attestations/acme/shop/trail/t1/system')
        .send({
          attestation_name: 'decision',
          type_name: 'decision',
          control: 'CTL-1',
          attestation_data: { is_compliant: false },
        })
        .expect(201);
      const refused = await assertArtifact('environment_name=guarded');
      const rule = refused.policy_evaluations[0].rule_evaluations.find(
        (r: { rule: { type: string } }) => r.rule.type === 'attestation',
      );
      assert.deepEqual(rule.resolutions, [
        { type: 'non_compliant_attestation', context: { for_control: 'CTL-1' } },
      ]);
    });

    it('by named policies, in the order named; an unknown one is 404', async () => {
      const body = await assertArtifact('policy_name=open&policy_name=needs-decision');
      assert.equal(body.scope, 'policy');
      assert.deepEqual(
        body.policy_evaluations.map((e: { policy_name: string; status: string }) => [
          e.policy_name,
          e.status,
        ]),
        [
          ['open', 'COMPLIANT'],
          ['needs-decision', 'NON-COMPLIANT'],
        ],
      );
      assert.equal(body.compliant, false);
      assert.equal((await assertArtifact('policy_name=open')).compliant, true);
      const unknown = await t.http
        .get(`/api/v2/asserts/acme/fingerprint/${FP}?policy_name=ghost`)
        .expect(404);
      assert.equal(unknown.body.message, 'Policy not found: ghost');
    });
  });
}
