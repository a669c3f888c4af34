import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import request from 'supertest';
import { FEATURES, OrganizationBootstrap } from '#des/accounts';
import { Mode, modeEnv, startApp, TestApp } from './support/app';
import { Answer, answer, assertSameAsThen, stepInstant } from './support/time-travel';

/**
 * Time travel, as a property: for any history of commands over several
 * aggregates, every `?at=` read at the instant after each step answers
 * exactly what the live read answered then. fast-check generates the
 * histories and, on a failure, shrinks to a shortest one and prints it.
 */
/**
 * Histories per run. fast-check draws a new seed each run (printed with a
 * failure, to replay it), so the runs of every submission add up; raise the
 * counts for a deeper local run.
 */
const RUNS: Record<Mode, number> = {
  embedded: Number(process.env.DES_PROPERTY_RUNS ?? 200),
  server: Number(process.env.DES_PROPERTY_RUNS_SERVER ?? 40),
};

/** Histories per fresh store. */
const CHUNK = 100;
/**
 * One history in PDF_EVERY also reads the trail audit PDF (its text) at every
 * step: a report is a browser render of some 100 ms, so not in all of them.
 */
const PDF_EVERY = 20;
const FINGERPRINTS = ['a1', 'b2', 'c3'].map((x) => x.repeat(32));
const POLICIES = [
  '_schema: https://kosli.com/schemas/policy/environment/v1\nartifacts:\n  provenance:\n    required: true\n',
  '_schema: https://kosli.com/schemas/policy/environment/v1\nartifacts:\n  attestations:\n    - name: tests\n      type: junit\n      for_control: C1\n',
];

type Step =
  | { kind: 'flow'; flow: number; tier: number }
  | { kind: 'trail'; flow: number; trail: number }
  | { kind: 'artifact'; flow: number; trail: number; fp: number }
  | { kind: 'junit'; flow: number; trail: number; failures: number }
  | { kind: 'environment' }
  | { kind: 'report'; fps: boolean[] }
  | { kind: 'policy'; version: number }
  | { kind: 'attach' | 'detach' }
  | { kind: 'env_tag'; value: number }
  | { kind: 'control'; name: number };

const small = (n: number) => fc.integer({ min: 0, max: n - 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('flow' as const), flow: small(2), tier: small(2) }),
  fc.record({ kind: fc.constant('trail' as const), flow: small(2), trail: small(2) }),
  fc.record({ kind: fc.constant('artifact' as const), flow: small(2), trail: small(2), fp: small(3) }),
  fc.record({ kind: fc.constant('junit' as const), flow: small(2), trail: small(2), failures: small(2) }),
  fc.record({ kind: fc.constant('environment' as const) }),
  fc.record({
    kind: fc.constant('report' as const),
    fps: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  }),
  fc.record({ kind: fc.constant('policy' as const), version: small(2) }),
  fc.record({ kind: fc.constantFrom('attach' as const, 'detach' as const) }),
  fc.record({ kind: fc.constant('env_tag' as const), value: small(3) }),
  fc.record({ kind: fc.constant('control' as const), name: small(2) }),
);

/** What a step sends (any answer is fine: a refused command is part of the history too). */
function send(http: ReturnType<typeof request.agent>, org: string, s: Step) {
  const flow = (i: number) => `f${i}`;
  const trail = (i: number) => `t${i}`;
  switch (s.kind) {
    case 'flow':
      return http.put(`/api/v2/flows/${org}`).send({ name: flow(s.flow), tags: { tier: String(s.tier) } });
    case 'trail':
      return http
        .put(`/api/v2/trails/${org}/${flow(s.flow)}`)
        .send({ name: trail(s.trail), repo_info: { name: `${org}/repo${s.flow}` } });
    case 'artifact':
      return http
        .post(`/api/v2/artifacts/${org}/${flow(s.flow)}`)
        .send({ fingerprint: FINGERPRINTS[s.fp], filename: `app${s.fp}:1`, trail_name: trail(s.trail) });
    case 'junit':
      return http.post(`/api/v2/attestations/${org}/${flow(s.flow)}/trail/${trail(s.trail)}/junit`).send({
        attestation_name: 'tests',
        junit_results: [{ name: 's', tests: 2, failures: s.failures, errors: 0 }],
      });
    case 'environment':
      return http.put(`/api/v2/environments/${org}`).send({ name: 'live', type: 'K8S' });
    case 'report':
      return http.put(`/api/v2/environments/${org}/live/report/K8S`).send({
        artifacts: FINGERPRINTS.flatMap((fp, i) =>
          s.fps[i]
            ? [
                {
                  creationTimestamp: 1_790_000_000,
                  digests: { [`app${i}:1`]: `sha256:${fp}` },
                  namespace: 'n',
                  podName: `p${i}`,
                },
              ]
            : [],
        ),
      });
    case 'policy':
      return http
        .put(`/api/v2/policies/${org}`)
        .field('payload', JSON.stringify({ name: 'p', comment: `v${s.version}`, type: 'env' }))
        .attach('policy_file.0', Buffer.from(POLICIES[s.version]), 'policy.yml');
    case 'attach':
    case 'detach':
      return http[s.kind === 'attach' ? 'post' : 'delete'](`/api/v2/environments/${org}/live/policies`).send({
        policy_names: ['p'],
      });
    case 'env_tag':
      return http.patch(`/api/v2/tags/${org}/env/live`).send({ set_tags: { stage: `s${s.value}` } });
    case 'control':
      return http
        .put(`/api/v2/controls/${org}/C1`)
        .send({ name: `Control ${s.name}` })
        .then((res) =>
          res.status === 404
            ? http.post(`/api/v2/controls/${org}`).send({ identifier: 'C1', name: `Control ${s.name}` })
            : res,
        );
  }
}

/** Every read the history can change, for one organization (and the audit PDF, when asked). */
const reads = (org: string, pdf: boolean) => [
  ...(pdf ? [`/api/v2/trails/${org}/f0/t0/audit_pdf`] : []),
  `/api/v2/environments/${org}`,
  `/api/v2/environments/${org}/live`,
  `/api/v2/environments/${org}/live/snapshots/-1`,
  `/api/v2/environments/${org}/live/events`,
  `/api/v2/environments/${org}/live/auditlog`,
  `/api/v2/environments/${org}/live/deployments?from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z`,
  `/api/v2/flows/${org}`,
  `/api/v2/flows/${org}/f0`,
  `/api/v2/trails/${org}/f0`,
  `/api/v2/trails/${org}/f0/t0`,
  `/api/v2/trails/${org}/f1/t1`,
  `/api/v2/artifacts/${org}/f0/${FINGERPRINTS[0]}`,
  `/api/v2/repos/${org}`,
  `/api/v2/policies/${org}`,
  `/api/v2/policies/${org}/p`,
  `/api/v2/controls/${org}`,
  `/api/v2/controls/${org}/C1`,
];

interface SnapshotAnswer {
  index: number;
  compliant: boolean;
  compliant_when_made: boolean;
  artifacts: { fingerprint: string; compliant: unknown; compliant_when_made: unknown; provenance: unknown }[];
}

/**
 * The compliance model (docs/auditors.md), over the answers at one instant
 * (which `?at=` then answers alike): `state` is the conjunction of `compliant`
 * over the snapshot in force; every artifact has a boolean `compliant` and a
 * `provenance` object or null; the latest snapshot's deployments carry its
 * artifacts' compliance when made.
 */
function assertOneComplianceModel(answers: Answer[]): void {
  const body = (suffix: string) => answers.find((a) => a.path.endsWith(suffix));
  const environment = body('/live');
  if (environment?.status !== 200) return;
  const { state } = environment.body as { state: boolean };
  const latest = body('/snapshots/-1')!;
  if (latest.status !== 200) {
    assert.equal(state, true, 'no snapshot yet: compliant');
    return;
  }
  const snapshot = latest.body as SnapshotAnswer;
  for (const a of snapshot.artifacts) {
    assert.equal(typeof a.compliant, 'boolean', `${a.fingerprint}: compliant`);
    assert.equal(typeof a.compliant_when_made, 'boolean', `${a.fingerprint}: compliant_when_made`);
    assert.ok(a.provenance === null || typeof a.provenance === 'object', `${a.fingerprint}: provenance`);
  }
  const conjunction = snapshot.artifacts.every((a) => a.compliant === true);
  assert.equal(snapshot.compliant, conjunction, 'the snapshot is compliant iff its artifacts are');
  assert.equal(state, conjunction, 'state is the conjunction over the snapshot in force');
  const deployments = (
    body('/deployments?from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z')!.body as {
      deployments: { fingerprint: string; snapshot_index: number; compliance: boolean }[];
    }
  ).deployments;
  for (const d of deployments.filter((d) => d.snapshot_index === snapshot.index)) {
    const artifact = snapshot.artifacts.find((a) => a.fingerprint === d.fingerprint)!;
    assert.equal(d.compliance, artifact.compliant_when_made, 'a deployment is compliant as it started');
  }
}

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`time travel, as a property (${mode} mode)`, () => {
    let t: TestApp | undefined;
    let cases = 0;
    /** A fresh service (and database): each run of histories starts from an empty store. */
    const fresh = async () => {
      await t?.close();
      // Thousands of appends: on a RAM disk where there is one, as fsyncs are not what this proves.
      const env = await modeEnv(mode);
      if (existsSync('/dev/shm')) env.DES_DATA_DIR = mkdtempSync(join('/dev/shm', 'des-property-'));
      t = await startApp({ mode, env, bootstrap: false });
      // Listening once: supertest would otherwise open and close a listener for every request.
      await new Promise<void>((r) => t!.server.listen(0, '127.0.0.1', r));
      return t;
    };
    after(async () => t?.close());

    it(`answers every ?at= read as the live read answered then, for ${RUNS[mode]} random histories`, async () => {
      // In runs of at most 100 histories, each against a fresh store: the test engines (FerretDB
      // above all) slow down as one database fills, and that is not what is measured here.
      for (let done = 0; done < RUNS[mode]; done += CHUNK) {
        const app = await fresh();
        await fc.assert(
          fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (history) => {
            const org = `p${mode[0]}${++cases}`;
            const pdf = cases % PDF_EVERY === 0;
            const { key } = await app.app
              .get(OrganizationBootstrap)
              .createOrganization(org, [...FEATURES], 5);
            const http = request.agent(app.server).set({ Authorization: `Bearer ${key}` });
            const seen: { at: number; answers: Answer[] }[] = [];
            // A PDF history begins its trail, so that every step has a report to read.
            const begun: Step[] = [
              { kind: 'flow', flow: 0, tier: 0 },
              { kind: 'trail', flow: 0, trail: 0 },
            ];
            for (const s of pdf ? [...begun, ...history] : history) {
              await send(http, org, s);
              const at = await stepInstant(app);
              const answers = [];
              for (const path of reads(org, pdf)) answers.push(await answer(http, path));
              assertOneComplianceModel(answers);
              seen.push({ at, answers });
            }
            await assertSameAsThen(http, seen);
          }),
          { numRuns: Math.min(CHUNK, RUNS[mode] - done), endOnFailure: false },
        );
      }
      assert.equal(cases >= RUNS[mode], true);
    });
  });
}
