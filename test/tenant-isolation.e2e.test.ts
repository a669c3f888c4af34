import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { FEATURES, OrganizationBootstrap } from '#des/accounts';
import { Mode, modeEnv, startApp, TestApp } from './support/app';
import { binary, textOf } from './support/pdf';
import { eventually } from './support/processes';
import { Route, routesOf } from './support/routes';

/**
 * Two organizations seeded through the API with the same names (flow, trail,
 * artifact fingerprint, environment, policy, control, action, repo, type); each
 * one's free text names its organization. No answer given to one ever holds
 * the other's name, and every route refuses a key of the other organization.
 */
const ALPHA = 'orgalpha';
const BRAVO = 'orgbravo';
const FP = 'cd'.repeat(32);
const FP2 = 'ef'.repeat(32);
const POLICY = `_schema: https://kosli.com/schemas/policy/environment/v1
artifacts:
  provenance:
    required: true
`;
// Echoes its whole input, so the evaluation's answer shows every trail it was given.
const ECHO =
  'package policy\nimport rego.v1\ndefault allow := false\nviolations contains json.marshal(input)\n';
const FORBIDDEN = { message: "You don't have permission to access this resource" };

type Http = ReturnType<typeof request.agent>;
const pods = (fingerprints: string[]) =>
  fingerprints.map((f, i) => ({
    podName: `shop-${i}`,
    namespace: 'prod',
    creationTimestamp: 1_790_000_000,
    digests: { 'registry.local/shop:1': `sha256:${f}` },
  }));

/** The same resources under the same names; the free text names `org`. */
async function seed(http: Http, org: string): Promise<{ evaluation: string }> {
  const steps = [
    () => http.put(`/api/v2/flows/${org}`).send({ name: 'shop', description: `${org} shop` }),
    () =>
      http.put(`/api/v2/trails/${org}/shop`).send({
        name: 'b1',
        description: `${org} build`,
        git_commit_info: { sha1: 'a1'.repeat(20), message: `${org} commit` },
        repo_info: { name: 'shared/shop', url: `https://git.example/${org}/shop` },
      }),
    () =>
      http
        .post(`/api/v2/artifacts/${org}/shop`)
        .send({ fingerprint: FP, filename: `${org}-shop:1`, trail_name: 'b1' }),
    () =>
      http.post(`/api/v2/attestations/${org}/shop/trail/b1/junit`).send({
        attestation_name: 'tests',
        junit_results: [{ name: `${org} suite`, tests: 2, failures: 0, errors: 0 }],
      }),
    () =>
      http
        .post(`/api/v2/custom-attestation-types/${org}`)
        .send({ name: 'coverage', description: `${org} coverage`, schema: { type: 'object' } }),
    () =>
      http.post(`/api/v2/controls/${org}`).send({ identifier: 'SOC2-CC8', name: `${org} change control` }),
    () =>
      http
        .put(`/api/v2/policies/${org}`)
        .field('payload', JSON.stringify({ name: 'prod-policy', comment: `${org} policy`, type: 'env' }))
        .attach('policy_file.0', Buffer.from(`${POLICY}# ${org}\n`), 'policy.yml'),
    () =>
      http.put(`/api/v2/environments/${org}`).send({ name: 'prod', type: 'K8S', description: `${org} prod` }),
    () => http.post(`/api/v2/environments/${org}/prod/policies`).send({ policy_names: ['prod-policy'] }),
    () =>
      http.put(`/api/v2/actions/${org}/environments`).send({
        name: 'watch',
        environments: ['prod'],
        triggers: ['ON_NON_COMPLIANT_ENV'],
        targets: [{ type: 'WEBHOOK', webhook: `http://127.0.0.1:9/${org}` }],
      }),
    () => http.put(`/api/v2/environments/${org}/prod/report/K8S`).send({ artifacts: pods([FP]) }),
    () => http.put(`/api/v2/environments/${org}/prod/report/K8S`).send({ artifacts: pods([FP, FP2]) }),
    () => http.patch(`/api/v2/tags/${org}/flow/shop`).send({ set_tags: { owner: org } }),
  ];
  for (const [i, step] of steps.entries()) {
    const res = await step();
    assert.ok(res.status < 300, `${org} step ${i}: ${res.status} ${JSON.stringify(res.body)}`);
  }
  const evaluation = await http.post(`/api/v2/evaluations/${org}`).send({
    context: { trails: [{ flow: 'shop', trail: 'b1' }] },
    policy: { files: { 'policy.rego': ECHO } },
  });
  assert.equal(evaluation.status, 201, JSON.stringify(evaluation.body));
  const id = evaluation.body.id as string;
  await eventually(
    () => http.get(`/api/v2/evaluations/${org}/${id}`),
    (res) => res.body.status === 'completed',
  );
  return { evaluation: id };
}

/** A route's path with `org`'s seeded names in its parameters. */
function pathFor(route: Route, org: string, evaluation: string): string {
  const name = route.path.startsWith('/api/v2/service-accounts')
    ? 'admin'
    : route.path.startsWith('/api/v2/policies')
      ? 'prod-policy'
      : route.path.startsWith('/api/v2/custom-attestation-types')
        ? 'coverage'
        : encodeURIComponent('shared/shop');
  const values: Record<string, string> = {
    org,
    flow: 'shop',
    trail: 'b1',
    env: 'prod',
    name,
    fingerprint: FP,
    prefix: FP.slice(0, 10),
    kind: 'fingerprint',
    id: route.path.startsWith('/api/v2/evaluations') ? evaluation : FP,
    number: '1',
    ref: '-1',
    identifier: 'SOC2-CC8',
    resource_type: 'flow',
    resource_id: 'shop',
    delivery: 'x',
    // A type there is (an unknown one names a path only read: 405 before any key is looked at).
    type: 'generic',
  };
  return route.path.replace(/:([a-z_]+)/g, (_m, p: string) => values[p] ?? 'x');
}

/** The query strings a read is asked with: as is, at this instant, and its own filters. */
function queriesFor(path: string): string[] {
  const at = `at=${Date.now() / 1000}`;
  const own: string[] = [];
  if (path.includes('/env-diff/')) own.push('snappish1=prod~1&snappish2=prod');
  if (path.includes('/asserts/')) own.push('environment_name=prod', 'flow_name=shop');
  if (/\/trails\/[^/]+$/.test(path)) own.push(`fingerprint=${FP}`, 'flow=shop');
  if (/\/artifacts\/[^/]+$/.test(path)) own.push('flow_name=shop');
  if (path.endsWith('/changes/sample')) own.push('size=5&seed=isolation');
  return ['', `?${at}`, ...own.map((q) => `?${q}`), ...own.map((q) => `?${q}&${at}`)];
}

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`tenant isolation: two organizations with the same names (${mode} mode)`, () => {
    let t: TestApp;
    const keys: Record<string, string> = {};
    const evaluations: Record<string, string> = {};
    const agent = (org: string) => request.agent(t.server).set('Authorization', `Bearer ${keys[org]}`);

    before(async () => {
      t = await startApp({
        mode,
        org: ALPHA,
        env: await modeEnv(mode, { DES_ACTIONS_ALLOW_PRIVATE_TARGETS: 'true' }),
      });
      keys[ALPHA] = t.key;
      keys[BRAVO] = (await t.app.get(OrganizationBootstrap).createOrganization(BRAVO, [...FEATURES], 20)).key;
      for (const org of [ALPHA, BRAVO]) evaluations[org] = (await seed(agent(org), org)).evaluation;
    });
    after(async () => t.close());

    it("answers 403 on every route of the router to a key of the other organization, with that organization's real names", async () => {
      const scoped = routesOf(t.app).filter((r) => r.path.includes(':org'));
      assert.ok(scoped.length >= 50, `${scoped.length} routes name an organization`);
      const unscoped = routesOf(t.app).filter((r) => !r.path.includes(':org') && !r.isPublic);
      assert.deepEqual(unscoped, [], 'every route that is not public names its organization');
      let checked = 0;
      for (const [owner, caller] of [
        [ALPHA, BRAVO],
        [BRAVO, ALPHA],
      ]) {
        for (const route of scoped) {
          const path = pathFor(route, owner, evaluations[owner]);
          const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
          const res = await agent(caller)[method](path).send({});
          assert.deepEqual(
            [res.status, res.body],
            [403, FORBIDDEN],
            `${caller}'s key: ${route.method} ${path}`,
          );
          checked++;
        }
      }
      console.log(`# tenant isolation (${mode}): ${checked} cross-organization requests, every one 403`);
    });

    it("never shows one organization's data in the other's reads: lists, searches, diffs, CSV, PDF, evaluations, ?at=", async () => {
      const reads = routesOf(t.app).filter((r) => r.method === 'GET' && r.path.includes(':org'));
      let answered = 0;
      let ok = 0;
      const okPaths = new Set<string>();
      for (const [reader, other] of [
        [BRAVO, ALPHA],
        [ALPHA, BRAVO],
      ]) {
        for (const route of reads) {
          const path = pathFor(route, reader, evaluations[reader]);
          for (const query of queriesFor(path)) {
            const pdf = path.endsWith('/audit_pdf');
            const call = agent(reader).get(path + query);
            const res = pdf ? await call.buffer(true).parse(binary) : await call;
            assert.ok(res.status < 500, `${reader}: GET ${path}${query}: ${res.status} ${res.text}`);
            const text = pdf && res.status === 200 ? textOf(res.body as Buffer) : res.text;
            assert.ok(
              !text.includes(other),
              `${reader}: GET ${path}${query} shows ${other}'s data: ${text.slice(0, 500)}`,
            );
            answered++;
            if (res.status === 200) {
              ok++;
              okPaths.add(route.path);
            }
          }
        }
      }
      // The reads really answered with data: the walk is not a tour of 404s.
      for (const must of [
        '/api/v2/trails/:org/:flow/:trail',
        '/api/v2/trails/:org/:flow/:trail/audit_pdf',
        '/api/v2/trails/:org',
        '/api/v2/environments/:org/:env/deployments',
        '/api/v2/environments/:org/:env/auditlog',
        '/api/v2/environments/:org/:env/snapshots/:ref',
        '/api/v2/env-diff/:org',
        '/api/v2/search/:org/sha/:prefix',
        '/api/v2/asserts/:org/fingerprint/:fingerprint',
        '/api/v2/evaluations/:org/:id',
        '/api/v2/artifacts/:org/:flow/:fingerprint',
        '/api/v2/audit/:org/changes',
        '/api/v2/audit/:org/changes/sample',
      ]) {
        assert.ok(okPaths.has(must), `GET ${must} answered 200 at least once`);
      }
      console.log(
        `# tenant isolation (${mode}): ${answered} reads of its own organization (${ok} answered 200), none showed the other's data`,
      );
    });

    it("an evaluation sees only its own organization's trail", async () => {
      for (const [org, other] of [
        [ALPHA, BRAVO],
        [BRAVO, ALPHA],
      ]) {
        const res = await agent(org).get(`/api/v2/evaluations/${org}/${evaluations[org]}`);
        const seen = JSON.stringify(res.body.result);
        assert.ok(seen.includes(`${org} build`), seen.slice(0, 300));
        assert.ok(!seen.includes(other), seen.slice(0, 300));
      }
    });
  });
}
