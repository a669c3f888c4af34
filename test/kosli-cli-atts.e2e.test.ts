import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Mode, startApp, TestApp } from './support/app';
import { replay as replayOne } from './support/kosli-replay';

/**
 * The Kosli CLI's attestation commands against this service: decisions,
 * overrides, pull requests, attestations read by name and by id, custom types
 * with summaries and versions. Each command's requests as the CLI sent them
 * (recorded with test/kosli-cli/record.mjs), replayed, then the effect checked.
 */
const FINGERPRINT = '5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03';

/**
 * `kosli attest pullrequest github` asks GitHub for the commit's pull requests
 * first (network), so its body is built as its source builds it
 * (pullrequest.go, internal/types: git_provider, pull_requests with commits).
 */
const pullRequestBody = (name: string, pullRequests: unknown[] | null) =>
  JSON.stringify({
    attestation_name: name,
    git_commit_info: { sha1: 'e136f21623c0b2e483645d459c770c7bb41daf36', branch: 'master' },
    git_provider: 'github',
    pull_requests: pullRequests,
  });

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`the Kosli CLI's attestation commands, replayed (${mode} mode)`, () => {
    let t: TestApp;

    const replay = (command: string, only?: number) => replayOne(t.http, command, only);

    const trail = async () => (await t.http.get('/api/v2/trails/demo/shop/t1').expect(200)).body;

    before(async () => {
      t = await startApp({ mode, org: 'demo' });
      // The flow (template: trail `tests` junit; artifact `app` with `scan` snyk), its trail and artifact.
      for (const command of ['create-flow', 'begin-trail', 'attest-artifact']) {
        const res = await replay(command);
        assert.equal(res.status, 201, `${command}: ${res.text}`);
      }
    });
    after(async () => t.close());

    it('attest decision (type_name decision, control, attestation_data): a system attestation, compliant as decided', async () => {
      const res = await replay('attest-decision');
      assert.equal(res.status, 201, res.text);
      const t1 = await trail();
      const approval = t1.attestations.approval;
      assert.deepEqual(
        [approval.type, approval.compliant, approval.evidence.control, approval.description],
        ['system', false, 'RCTL-043', 'not yet approved'],
      );
      assert.equal(t1.compliance_status.status, 'NON-COMPLIANT');
      assert.deepEqual(t1.compliance_status.failing, ['approval']);
    });

    it('attest override on the trail: the new status replaces the decision’s, which the override keeps', async () => {
      const res = await replay('attest-override');
      assert.equal(res.status, 201, res.text);
      const t1 = await trail();
      const approval = t1.attestations.approval;
      assert.deepEqual(
        [
          approval.type,
          approval.compliant,
          approval.evidence.reason,
          approval.evidence.original_attestation_type,
        ],
        ['override', true, 'approved by the CAB on the phone', 'system'],
      );
      assert.deepEqual([approval.overridden.type, approval.overridden.compliant], ['system', false]);
      assert.deepEqual(t1.compliance_status.failing, []);
    });

    it('attest override on an artifact not yet attested: it stands for the attestation the template requires', async () => {
      assert.equal((await replay('attest-junit')).status, 201);
      const res = await replay('attest-override-artifact');
      assert.equal(res.status, 201, res.text);
      const t1 = await trail();
      const scan = t1.artifacts[0].attestations.scan;
      assert.deepEqual([scan.type, scan.compliant, scan.overridden], ['override', true, null]);
      assert.equal(t1.compliance_status.status, 'COMPLIANT');
    });

    it('get attestation NAME --trail: every attestation of the name, oldest first, with the fields the CLI prints', async () => {
      const res = await replay('get-attestation');
      assert.equal(res.status, 200, res.text);
      const list = res.body as Record<string, unknown>[];
      assert.deepEqual(
        list.map((a) => [a.attestation_name, a.attestation_type, a.is_compliant]),
        [
          ['approval', 'system', false],
          ['approval', 'override', true],
        ],
      );
      assert.equal(typeof list[0].attestation_id, 'string');
      assert.equal(typeof list[0].created_at, 'number');
      assert.equal((list[0].git_commit_info as { sha1: string }).sha1.length, 40);
      assert.match(list[0].html_url as string, /\/ui\/demo\/flows\/shop\/trails\/t1/);
      const none = await t.http.get('/api/v2/attestations/demo/shop/trail/t1/nothing-so-named').expect(200);
      assert.deepEqual(none.body, []);
    });

    it('get attestation NAME --fingerprint: the artifact’s attestations of the name', async () => {
      const res = await replay('get-attestation-artifact');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        (res.body as Record<string, unknown>[]).map((a) => [
          a.attestation_type,
          a.artifact_fingerprint,
          a.trail_name,
        ]),
        [['override', FINGERPRINT, 't1']],
      );
    });

    it('get attestation --attestation-id (and evaluate’s read of each attestation): {data: [it]}, or an empty data', async () => {
      const [decision] = (await replay('get-attestation')).body as { attestation_id: string }[];
      // The request `kosli get attestation --attestation-id` and `kosli evaluate trail` make (getAttestation.go, evaluateHelpers.go).
      const res = await t.http
        .get(`/api/v2/attestations/demo?attestation_id=${encodeURIComponent(decision.attestation_id)}`)
        .expect(200);
      assert.equal(res.body.data.length, 1);
      const [one] = res.body.data;
      assert.deepEqual(
        [one.attestation_name, one.attestation_type, one.control, one.attestation_data, one.user_data],
        ['approval', 'system', 'RCTL-043', { is_compliant: false }, {}],
      );
      const none = await t.http.get('/api/v2/attestations/demo?attestation_id=no-such-id').expect(200);
      assert.deepEqual(none.body, { data: [] });
    });

    it('attest pullrequest github (git_provider, pull requests or none): accepted, the provider kept', async () => {
      const pr = {
        merge_commit: 'e136f21623c0b2e483645d459c770c7bb41daf36',
        url: 'https://github.com/acme/shop/pull/7',
        state: 'MERGED',
        approvers: ['ada'],
        author: 'grace',
        commits: [],
      };
      const found = await t.http
        .post('/api/v2/attestations/demo/shop/trail/t1/pull_request')
        .set('Content-Type', 'application/json; charset=utf-8')
        .send(pullRequestBody('pr', [pr]));
      assert.equal(found.status, 201, found.text);
      const none = await t.http
        .post('/api/v2/attestations/demo/shop/trail/t1/pull_request')
        .set('Content-Type', 'application/json; charset=utf-8')
        .send(pullRequestBody('no-pr', null));
      assert.equal(none.status, 201, none.text);
      const t1 = await trail();
      assert.deepEqual(
        [t1.attestations.pr.compliant, t1.attestations.pr.evidence.git_provider],
        [true, 'github'],
      );
      assert.equal(t1.attestations['no-pr'].compliant, false);
    });

    it('attest jira and attest sonar (bodies as the CLI builds them, since it asks Jira and SonarQube first)', async () => {
      // attestJira.go, internal/jira: issue_id, issue_url, issue_exists (no issue_key).
      const jira = await t.http.post('/api/v2/attestations/demo/shop/trail/t1/jira').send({
        attestation_name: 'jira',
        jira_results: [
          { issue_id: 'SHOP-7', issue_url: 'https://acme.atlassian.net/browse/SHOP-7', issue_exists: true },
        ],
      });
      assert.deepEqual([jira.status, jira.body.compliant], [201, true], jira.text);
      // attestSonar.go, internal/sonar: the analysis as Sonar names it, with its quality gate.
      const sonar = await t.http.post('/api/v2/attestations/demo/shop/trail/t1/sonar').send({
        attestation_name: 'sonar',
        sonar_results: {
          serverUrl: 'https://sonarcloud.io',
          taskId: 'AY1',
          status: 'SUCCESS',
          analysedAt: '2026-11-25T03:00:00+0000',
          revision: 'e136f21623c0b2e483645d459c770c7bb41daf36',
          project: { key: 'acme_shop', name: 'shop', url: 'https://sonarcloud.io/dashboard?id=acme_shop' },
          qualityGate: {
            status: 'ERROR',
            conditions: [
              {
                metric: 'coverage',
                errorThreshold: '80',
                operator: 'LESS_THAN',
                value: '61',
                status: 'ERROR',
              },
            ],
          },
        },
      });
      assert.deepEqual(
        [sonar.status, sonar.body.type, sonar.body.compliant],
        [201, 'sonar', false],
        sonar.text,
      );
    });

    it('an external URL’s fingerprint that is not a sha256 is refused, the value named', async () => {
      const bad = { file: { href: 'https://example.com/f', fingerprint: '7509e5bda0' } };
      const attestation = await t.http
        .post('/api/v2/attestations/demo/shop/trail/t1/generic')
        .send({ attestation_name: 'linked', external_urls: bad });
      assert.equal(attestation.status, 400);
      assert.match(JSON.stringify(attestation.body.errors), /7509e5bda0/);
      const artifact = await t.http
        .post('/api/v2/artifacts/demo/shop')
        .send({ fingerprint: FINGERPRINT, filename: 'app.bin', trail_name: 't1', external_urls: bad });
      assert.deepEqual([artifact.status, artifact.body.message], [400, 'Input payload validation failed']);
      assert.match(artifact.body.errors.external_urls, /'7509e5bda0' is not a sha256 fingerprint/);
    });

    it('attesting to an artifact the trail lacks: Kosli’s words, no field list', async () => {
      const res = await t.http
        .post('/api/v2/attestations/demo/shop/trail/t1/generic')
        .send({ attestation_name: 'x', artifact_fingerprint: 'f'.repeat(64) });
      assert.deepEqual(
        [res.status, res.body],
        [
          404,
          {
            message: `Artifact with fingerprint ${'f'.repeat(64)} does not exist in trail "t1" of flow "shop" belonging to organization "demo"`,
          },
        ],
      );
    });

    it('create attestation-type --summary, twice with another rule, then again the same: two versions', async () => {
      // Two creates: the type, then another rule and one summary line less.
      assert.equal((await replay('create-attestation-type-summary')).status, 201);
      const again = await replay('create-attestation-type-summary', 1);
      assert.equal(again.status, 201, again.text);
      const type = again.body;
      assert.deepEqual(
        type.versions.map((v: { version: number; evaluator: { rules: string[] } }) => [
          v.version,
          v.evaluator.rules,
        ]),
        [
          [1, ['.coverage > 80']],
          [2, ['.coverage > 90']],
        ],
      );
      assert.deepEqual(type.versions[0].summary, [
        { name: 'Coverage', expression: '.coverage' },
        { name: 'Files', expression: '.files | length' },
      ]);
      assert.deepEqual(type.summary, [{ name: 'Coverage', expression: '.coverage' }]);
      assert.deepEqual([type.org, type.description], ['demo', 'test coverage']);
    });

    it('get attestation-type NAME@v1: that version alone; list attestation-types: the latest version number', async () => {
      const one = await replay('get-attestation-type-version');
      assert.equal(one.status, 200, one.text);
      assert.deepEqual(
        [
          one.body.name,
          one.body.org,
          one.body.archived,
          one.body.versions.map((v: { version: number }) => v.version),
        ],
        ['coverage', 'demo', false, [1]],
      );
      const list = await replay('list-attestation-types');
      assert.deepEqual(
        (list.body as { name: string; versions: unknown[] }[]).map((t) => [t.name, t.versions.length]),
        [['coverage', 2]],
      );
      const missing = await t.http.get('/api/v2/custom-attestation-types/demo/coverage?version=3');
      assert.deepEqual(
        [missing.status, missing.body.message],
        [404, "version 3 does not exist for custom attestation type 'coverage'"],
      );
    });
  });
}
