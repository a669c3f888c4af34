import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Mode, startApp, TestApp } from './support/app';
import { recorded, replay as replayOne } from './support/kosli-replay';
import { eventually } from './support/processes';

/**
 * The Kosli CLI's flow, control and allow-list commands against this service:
 * each command's requests as the CLI sent them (recorded with
 * test/kosli-cli/record.mjs), replayed, then the answer read as the CLI reads
 * it and the effect checked.
 */
/** The fingerprint `allow-artifact.json` allows. */
const FINGERPRINT = '5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03';
const UNKNOWN_TYPE =
  "must be *, generic, junit, snyk, sonar, pull_request, jira, decision or custom:<custom attestation type>, not 'not-supported'";

const k8sReport = (digests: string[]) => ({
  artifacts: digests.map((digest, i) => ({
    podName: `shop-${i}`,
    namespace: 'prod',
    digests: { [`shop:${i}`]: `sha256:${digest}` },
    creationTimestamp: 1_795_390_000,
  })),
});

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`the Kosli CLI's flow, control and allow-list commands, replayed (${mode} mode)`, () => {
    let t: TestApp;

    const replay = (command: string) => replayOne(t.http, command);

    const flow = (name: string, at?: number) =>
      t.http.get(`/api/v2/flows/demo/${name}`).query(at === undefined ? {} : { at });
    const flowNames = async (at?: number) =>
      (
        (
          await t.http
            .get('/api/v2/flows/demo')
            .query(at === undefined ? {} : { at })
            .expect(200)
        ).body as {
          name: string;
        }[]
      ).map((f) => f.name);

    before(async () => {
      t = await startApp({ mode, org: 'demo' });
    });
    after(async () => t.close());

    it('create flow without a template file: the legacy list becomes trail attestations of any type', async () => {
      const res = await replay('create-flow-legacy');
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(res.body.template, { trail: { attestations: [{ name: 'tests', type: '*' }] } });
    });

    it('create flow --visibility: accepted (and ignored)', async () => {
      const res = await replay('create-flow-visibility');
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(res.body.template, {});
    });

    it('create flow with a template naming an unknown attestation type: 400, and no flow', async () => {
      const res = await replay('create-flow-invalid-template');
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body, {
        message: 'Input payload validation failed',
        errors: { 'template.trail.attestations[0].type': UNKNOWN_TYPE },
      });
      await flow('bad-template').expect(404);
    });

    it('archive flow: archived, out of the list, refuses changes; unarchived, back', async () => {
      const res = await replay('archive-flow');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.archived, true);
      assert.equal((await flow('legacy-flow').expect(200)).body.archived, true);
      assert.ok(!(await flowNames()).includes('legacy-flow'));
      const refused = await t.http.put('/api/v2/flows/demo').send({ name: 'legacy-flow', description: 'x' });
      assert.equal(refused.status, 400);
      assert.equal(
        refused.body.message,
        "Flow 'legacy-flow' is archived; unarchive it (PUT /flows/{org}/legacy-flow/unarchive) to change it",
      );
      await t.http.put('/api/v2/flows/demo/no-such-flow/archive').expect(404, { message: 'Flow not found' });
      await t.http.put('/api/v2/flows/demo/legacy-flow/unarchive').expect(200);
      assert.ok((await flowNames()).includes('legacy-flow'));
      await t.http.put('/api/v2/flows/demo').send({ name: 'legacy-flow', description: 'x' }).expect(200);
    });

    it('rename flow: the flow continues under the new name; the old name keeps its trails and its past', async () => {
      assert.equal((await replay('create-flow-app')).status, 201);
      await t.http.put('/api/v2/trails/demo/app').send({ name: 't0' }).expect(201);
      const before = (await flow('app').expect(200)).body.last_modified_at as number;
      const res = await replay('rename-flow');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.name, 'application');
      assert.equal(res.body.renamed_from, 'app');
      const renamed = (await flow('application').expect(200)).body;
      const original = (await flow('app').expect(200)).body;
      assert.deepEqual(renamed.template, original.template);
      assert.equal(renamed.description, 'the app');
      assert.equal(original.renamed_to, 'application');
      const names = await flowNames();
      assert.ok(names.includes('application') && !names.includes('app'), names.join());
      // The trail stays where it was reported; the past reads as it was.
      await t.http.get('/api/v2/trails/demo/app/t0').expect(200);
      assert.equal((await flow('app', before).expect(200)).body.renamed_to, null);
      await flow('application', before).expect(404);
      assert.ok((await flowNames(before)).includes('app'));
      // The new name taken by another flow's rename is refused; the old name is free to take.
      const taken = await t.http
        .put('/api/v2/flows/demo/legacy-flow/rename')
        .send({ new_name: 'application' });
      assert.equal(taken.status, 400);
      assert.equal(taken.body.message, "A flow named 'application' already exists");
      await t.http.put('/api/v2/flows/demo/nothing/rename').send({ new_name: 'x' }).expect(404);
      const bad = await t.http
        .put('/api/v2/flows/demo/application/rename')
        .send({ new_name: 'new illegal name' });
      assert.equal(bad.status, 400);
      assert.match(bad.body.errors.new_name, /'new illegal name' is not a valid flow name/);
      await t.http.put('/api/v2/flows/demo').send({ name: 'app', description: 'a new app' }).expect(201);
      assert.equal((await flow('app').expect(200)).body.renamed_to, null);
    });

    it('list flows --name --ignore-case with a page: the page the CLI decodes; unpaged, the list itself', async () => {
      const res = await replay('list-flows-search');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        (res.body.data as { name: string }[]).map((f) => f.name),
        ['application'],
      );
      assert.deepEqual(res.body.pagination, { page: 1, page_count: 1, total: 1, per_page: 1 });
      const cased = await t.http.get('/api/v2/flows/demo').query({ search_by_name: 'APPLI' }).expect(200);
      assert.deepEqual(cased.body, []);
      const beyond = await t.http.get('/api/v2/flows/demo').query({ page: 99 }).expect(200);
      assert.deepEqual(beyond.body.data, []);
      assert.ok(Array.isArray((await t.http.get('/api/v2/flows/demo').expect(200)).body));
    });

    it('begin trail with a template file naming an unknown type: 400, and no trail', async () => {
      const res = await replay('begin-trail-invalid-template');
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body.errors, { 'template_file.trail.attestations[0].type': UNKNOWN_TYPE });
      await t.http.get('/api/v2/trails/demo/application/t1').expect(404);
    });

    it('archive and unarchive control; list controls --archived gets the page the CLI decodes', async () => {
      assert.equal((await replay('create-control')).status, 201);
      const archived = await replay('archive-control');
      assert.equal(archived.status, 200, archived.text);
      assert.equal(archived.body.archived, true);
      const active = (await t.http.get('/api/v2/controls/demo').expect(200)).body as { identifier: string }[];
      assert.ok(!active.some((c) => c.identifier === 'SOC2-CC8.1'));
      const listed = await replay('list-controls-archived');
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(
        (listed.body.controls as { identifier: string }[]).map((c) => c.identifier),
        ['SOC2-CC8.1'],
      );
      assert.deepEqual(
        [listed.body.page, listed.body.per_page, listed.body.total_pages, listed.body.total_count],
        [1, 15, 1, 1],
      );
      const refused = await t.http.put('/api/v2/controls/demo/SOC2-CC8.1').send({ name: 'x' });
      assert.equal(refused.status, 400);
      assert.match(refused.body.message, /^Control 'SOC2-CC8.1' is archived/);
      await t.http.post('/api/v2/controls/demo/none/archive').expect(404, { message: 'Control not found' });
      const back = await replay('unarchive-control');
      assert.equal(back.status, 200, back.text);
      assert.equal(back.body.archived, false);
      await t.http.put('/api/v2/controls/demo/SOC2-CC8.1').send({ name: 'x' }).expect(200);
    });

    it('allow artifact: the artifact counts as compliant in that environment, now and in later snapshots', async () => {
      await t.http.put('/api/v2/environments/demo').send({ name: 'prod', type: 'K8S' }).expect(201);
      await t.http
        .put('/api/v2/environments/demo/prod/report/K8S')
        .send(k8sReport([FINGERPRINT]))
        .expect(201);
      const snapshot = () => t.http.get('/api/v2/environments/demo/prod/snapshots/-1').then((r) => r.body);
      assert.equal((await snapshot()).artifacts[0].compliant, false);
      const res = await replay('allow-artifact');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.fingerprint, FINGERPRINT);
      assert.equal(res.body.description, 'hotfix approved by the CAB');
      const now = await eventually(snapshot, (s) => s.artifacts[0].compliant === true);
      assert.equal(now.artifacts[0].compliant_when_made, false);
      await eventually(
        () => t.http.get('/api/v2/environments/demo/prod').then((r) => r.body.state as boolean),
        (state) => state === true,
      );
      const entries = (await t.http.get('/api/v2/allowlists/demo/prod').expect(200)).body;
      assert.deepEqual(
        entries.map((e: { fingerprint: string; artifact_name: string }) => [e.fingerprint, e.artifact_name]),
        [[FINGERPRINT, 'shop:1']],
      );
      // A later report: the allowed artifact is compliant when made, the other is not.
      await t.http
        .put('/api/v2/environments/demo/prod/report/K8S')
        .send(k8sReport([FINGERPRINT, 'f'.repeat(64)]))
        .expect(201);
      const later = await snapshot();
      const made = Object.fromEntries(
        (later.artifacts as { fingerprint: string; compliant_when_made: boolean }[]).map((a) => [
          a.fingerprint,
          a.compliant_when_made,
        ]),
      );
      assert.deepEqual(made, { [FINGERPRINT]: true, ['f'.repeat(64)]: false });
      await t.http
        .put('/api/v2/allowlists/demo/nowhere')
        .send(
          JSON.parse(
            Buffer.from(recorded('allow-artifact')[0].body_base64, 'base64').toString('utf8'),
          ) as object,
        )
        .expect(404, { message: 'Environment not found' });
    });
  });
}
