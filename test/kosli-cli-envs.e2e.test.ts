import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Mode, startApp, TestApp } from './support/app';
import { recorded, replayAll } from './support/kosli-replay';

/**
 * The Kosli CLI's environment commands against this service: `snapshot
 * server|path|paths` (with `--auto-environment`), `create environment` with
 * its deprecated flags, `list environments` paged and filtered, `join`,
 * `archive` and `rename environment`, each as the CLI sent it (recorded with
 * test/kosli-cli/record.mjs), replayed in order, the effect checked.
 */
for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`the Kosli CLI's environment commands, replayed (${mode} mode)`, () => {
    let t: TestApp;

    const replay = (command: string) => replayAll(t.http, command);
    const statuses = async (command: string) => (await replay(command)).map((r) => r.status);
    const latest = async (env: string) =>
      (await t.http.get(`/api/v2/environments/demo/${env}/snapshots/-1`).expect(200)).body;
    const names = (snapshot: { artifacts: { artifact_name: string }[] }) =>
      snapshot.artifacts.map((a) => a.artifact_name).sort();

    before(async () => {
      t = await startApp({ mode, org: 'demo' });
    });
    after(async () => t.close());

    it('create environment: takes the deprecated --include-scaling and --require-provenance', async () => {
      assert.deepEqual(await statuses('create-environment-deprecated'), [201]);
      const env = (await t.http.get('/api/v2/environments/demo/files').expect(200)).body;
      assert.deepEqual([env.type, env.description, env.include_scaling], ['server', 'File servers', false]);
    });

    it('snapshot server, path and paths: a snapshot per change of what runs, none for the same', async () => {
      assert.deepEqual(await statuses('snapshot-server'), [201]);
      assert.deepEqual(names(await latest('files')), ['/tmp/envs-rec/files/app.bin']);
      const again = await replay('snapshot-server');
      assert.deepEqual([again[0].status, again[0].body], [200, 'No new snapshot created']);
      assert.deepEqual(await statuses('snapshot-path'), [201]);
      const second = await latest('files');
      assert.deepEqual([second.index, names(second)], [2, ['app']]);
      assert.deepEqual(await statuses('snapshot-paths'), [201]);
      assert.deepEqual(names(await latest('files')), ['differ']);
      const log = (await t.http.get('/api/v2/environments/demo/files/events').expect(200)).body;
      assert.deepEqual(
        log.map((e: { snapshot_index: number; event_type: string; artifact_name: string }) => [
          e.snapshot_index,
          e.event_type,
          e.artifact_name,
        ]),
        [
          [1, 'started', '/tmp/envs-rec/files/app.bin'],
          [2, 'started', 'app'],
          [2, 'exited', '/tmp/envs-rec/files/app.bin'],
          [3, 'started', 'differ'],
          [3, 'exited', 'app'],
        ],
      );
    });

    it('snapshot --auto-environment: a 404 read, the environment created with the inferred type, then the report', async () => {
      assert.deepEqual(await statuses('snapshot-auto-environment'), [404, 201, 201]);
      const env = (await t.http.get('/api/v2/environments/demo/files-auto').expect(200)).body;
      assert.deepEqual([env.type, env.description], ['server', 'Auto-created by kosli snapshot']);
      assert.deepEqual(names(await latest('files-auto')), ['differ']);
    });

    it('list environments: the page the CLI asks for, by name, type and tag, sorted', async () => {
      assert.deepEqual(await statuses('tag-environment-team'), [200]);
      const [page] = await replay('list-environments-paged');
      assert.equal(page.status, 200);
      assert.deepEqual(
        [page.body.page, page.body.per_page, page.body.total_pages, page.body.total_count],
        [1, 10, 1, 1],
      );
      assert.deepEqual(
        page.body.environments.map((e: { name: string; tags: Record<string, string> }) => [e.name, e.tags]),
        [['files', { team: 'platform' }]],
      );
    });

    it('join environment: a physical environment becomes a member of a logical one', async () => {
      assert.deepEqual(await statuses('create-environment-logical'), [201]);
      assert.deepEqual(await statuses('join-environment'), [200]);
      const logical = (await t.http.get('/api/v2/environments/demo/all-files').expect(200)).body;
      assert.deepEqual(logical.included_environments, ['files']);
    });

    it('archive environment: no more reports, out of the list', async () => {
      assert.deepEqual(await statuses('archive-environment'), [200]);
      // The CLI reads the environment first (an archived one is still there: no create), then reports.
      const read = await t.http.get('/api/v2/environments/demo/files-auto').expect(200);
      assert.equal(read.body.archived, true);
      const [, , sent] = recorded('snapshot-auto-environment');
      const report = await t.http
        .put(sent.path)
        .set('Content-Type', sent.content_type!)
        .send(Buffer.from(sent.body_base64, 'base64').toString('utf8'));
      assert.deepEqual(
        [report.status, report.body.message],
        [400, "Environment 'files-auto' is archived and takes no reports"],
      );
      const list = (await t.http.get('/api/v2/environments/demo').expect(200)).body;
      assert.ok(!list.some((e: { name: string }) => e.name === 'files-auto'));
    });

    it('rename environment: it goes on under the new name; the old one is gone', async () => {
      assert.deepEqual(await statuses('rename-environment'), [200]);
      const renamed = (await t.http.get('/api/v2/environments/demo/file-servers').expect(200)).body;
      assert.deepEqual([renamed.type, renamed.tags], ['server', { team: 'platform' }]);
      assert.equal((await t.http.get('/api/v2/environments/demo/files')).status, 404);
      const logical = (await t.http.get('/api/v2/environments/demo/all-files').expect(200)).body;
      assert.deepEqual(logical.included_environments, ['file-servers'], 'its logical environment follows it');
      assert.deepEqual(await statuses('snapshot-paths'), [404], 'the old name takes no report');
      const { status, body } = await t.http
        .put('/api/v2/environments/demo/file-servers/report/server')
        .send(Buffer.from(recorded('snapshot-paths')[0].body_base64, 'base64').toString('utf8'))
        .set('Content-Type', 'application/json');
      assert.deepEqual([status, body], [200, 'No new snapshot created'], 'what ran goes on running');
    });
  });
}
