import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Mode, modeEnv, startApp, TestApp } from './support/app';
import { Answer, answer, assertSameAsThen, stepInstant } from './support/time-travel';

const FP = 'ab'.repeat(32);
const POLICY = `_schema: https://kosli.com/schemas/policy/environment/v1
artifacts:
  provenance:
    required: true
  attestations:
    - name: tests
      type: junit
      for_control: SOC2-CC8
`;
/** Every read of an organization's resources (besides environments and single trails) that takes `?at=`. */
const READS = [
  '/api/v2/flows/acme',
  '/api/v2/flows/acme/shop',
  '/api/v2/trails/acme/shop',
  '/api/v2/trails/acme/shop/b1',
  `/api/v2/artifacts/acme/shop/${FP}`,
  '/api/v2/repos/acme',
  '/api/v2/repos/acme/acme%2Fshop',
  '/api/v2/custom-attestation-types/acme',
  '/api/v2/custom-attestation-types/acme/coverage',
  '/api/v2/policies/acme',
  '/api/v2/policies/acme/prod-policy',
  '/api/v2/controls/acme',
  '/api/v2/controls/acme/SOC2-CC8',
  '/api/v2/actions/acme',
  '/api/v2/actions/acme/1',
  '/api/v2/actions/acme/1/deliveries',
  '/api/v2/environments/acme/prod',
];

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`time travel: every resource at any instant (${mode} mode)`, () => {
    let t: TestApp;
    const seen: { at: number; answers: Answer[] }[] = [];

    before(async () => {
      t = await startApp({ mode, env: await modeEnv(mode, { DES_ACTIONS_ALLOW_PRIVATE_TARGETS: 'true' }) });
      const http = () => t.http;
      const steps = [
        () =>
          http()
            .put('/api/v2/flows/acme')
            .send({ name: 'shop', tags: { tier: '1' } }),
        () =>
          http()
            .put('/api/v2/trails/acme/shop')
            .send({ name: 'b1', repo_info: { name: 'acme/shop', url: 'https://git.example/acme/shop' } }),
        () =>
          http()
            .post('/api/v2/artifacts/acme/shop')
            .send({ fingerprint: FP, filename: 'shop:1', trail_name: 'b1' }),
        () =>
          http()
            .post('/api/v2/attestations/acme/shop/trail/b1/junit')
            .send({
              attestation_name: 'tests',
              junit_results: [{ name: 's', tests: 2, failures: 1, errors: 0 }],
            }),
        () =>
          http()
            .post('/api/v2/custom-attestation-types/acme')
            .send({ name: 'coverage', schema: { type: 'object' }, jq_rules: ['.lines >= 80'] }),
        () =>
          http().post('/api/v2/controls/acme').send({ identifier: 'SOC2-CC8', name: 'Change management' }),
        () =>
          http()
            .put('/api/v2/policies/acme')
            .field('payload', JSON.stringify({ name: 'prod-policy', comment: 'v1', type: 'env' }))
            .attach('policy_file.0', Buffer.from(POLICY), 'policy.yml'),
        () => http().put('/api/v2/environments/acme').send({ name: 'prod', type: 'K8S' }),
        () =>
          http()
            .post('/api/v2/environments/acme/prod/policies')
            .send({ policy_names: ['prod-policy'] }),
        () =>
          http()
            .put('/api/v2/actions/acme/environments')
            .send({
              name: 'watch',
              environments: ['prod'],
              triggers: ['ON_COMPLIANT_ENV'],
              targets: [{ type: 'WEBHOOK', webhook: 'http://127.0.0.1:9/des' }],
            }),
        () =>
          http()
            .patch('/api/v2/tags/acme/flow/shop')
            .send({ set_tags: { tier: '0' } }),
        () => http().put('/api/v2/controls/acme/SOC2-CC8').send({ name: 'Change control' }),
        () =>
          http()
            .put('/api/v2/policies/acme')
            .field('payload', JSON.stringify({ name: 'prod-policy', comment: 'v2', type: 'env' }))
            .attach('policy_file.0', Buffer.from(`${POLICY}# reviewed\n`), 'policy.yml'),
        () =>
          http()
            .post('/api/v2/attestations/acme/shop/trail/b1/junit')
            .send({
              attestation_name: 'tests',
              junit_results: [{ name: 's', tests: 2, failures: 0, errors: 0 }],
            }),
        () => http().put('/api/v2/custom-attestation-types/acme/coverage/archive'),
        () => http().delete('/api/v2/actions/acme/1'),
      ];
      for (const [i, step] of steps.entries()) {
        const res = await step();
        assert.ok(res.status < 300, `step ${i}: ${res.status} ${JSON.stringify(res.body)}`);
        const at = await stepInstant(t);
        seen.push({ at, answers: await Promise.all(READS.map((path) => answer(t.http, path))) });
      }
    });
    after(async () => t.close());

    it('answers every read at every instant exactly as the live read answered then', async () => {
      assert.equal(seen.length, 16);
      await assertSameAsThen(t.http, seen);
      // The history is really there: the policy had one version, then two; the action existed, then not.
      const at = (i: number, path: string) => seen[i].answers.find((a) => a.path === path)!;
      assert.equal((at(6, '/api/v2/policies/acme/prod-policy').body as { versions: [] }).versions.length, 1);
      assert.equal((at(12, '/api/v2/policies/acme/prod-policy').body as { versions: [] }).versions.length, 2);
      assert.equal(at(14, '/api/v2/actions/acme/1').status, 200);
      assert.equal(at(15, '/api/v2/actions/acme/1').status, 404);
      assert.equal(at(0, '/api/v2/trails/acme/shop/b1').status, 404);
    });
  });
}
