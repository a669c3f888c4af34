import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { Mode, startApp, TestApp } from './support/app';
import { stepInstant } from './support/time-travel';

const fp = (c: string) => c.repeat(64);

/** A report of each type as the Kosli CLI sends it, running `artifacts` (name → fingerprint character). */
const BODIES: Record<string, (artifacts: Record<string, string>) => object> = {
  server: (a) => ({
    artifacts: Object.entries(a).map(([n, c]) => ({
      digests: { [n]: fp(c) },
      creationTimestamp: 1_790_000_000,
    })),
  }),
  S3: (a) => ({
    artifacts: [
      { digests: Object.fromEntries(Object.entries(a).map(([n, c]) => [n, fp(c)])), creationTimestamp: 1 },
    ],
  }),
  lambda: (a) => ({
    artifacts: Object.entries(a).map(([n, c]) => ({
      digests: { [n]: fp(c) },
      creationTimestamp: 1_790_000_000,
    })),
  }),
  docker: (a) => ({
    artifacts: Object.entries(a).map(([n, c]) => ({
      digests: { [n]: `sha256:${fp(c)}` },
      creationTimestamp: 2,
    })),
  }),
  ECS: (a) => ({
    artifacts: Object.entries(a).map(([n, c], i) => ({
      taskArn: `arn:aws:ecs:task/${i}`,
      cluster_name: 'prod',
      service_name: 'shop',
      digests: { [n]: fp(c), 'unresolved:1': '' },
      creationTimestamp: 3,
    })),
  }),
  'azure-apps': (a) => ({
    artifacts: Object.entries(a).map(([n, c]) => ({
      app_name: n,
      app_kind: 'app',
      digests_source: 'acr',
      digests: { [n]: fp(c) },
      creationTimestamp: 4,
    })),
  }),
  'cloud-run': (a) => ({
    type: 'cloud-run',
    artifacts: Object.entries(a).map(([n, c]) => ({
      kind: 'service',
      serviceName: n,
      revisionName: `${n}-001`,
      digests: { [n]: fp(c) },
      creationTimestamp: 5,
    })),
  }),
};

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`environments of every type, their lifecycle and list (${mode} mode)`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp({ mode });
    });
    after(async () => t.close());

    const report = (env: string, type: string, body: object) =>
      t.http.put(`/api/v2/environments/acme/${env}/report/${type}`).send(body);

    it('takes the report of every type into the same snapshots as K8S: a change makes one, no change none', async () => {
      for (const [type, body] of Object.entries(BODIES)) {
        const env = `env-${type.toLowerCase()}`;
        const created = await t.http.put('/api/v2/environments/acme').send({ name: env, type });
        assert.equal(created.status, 201, `${type}: ${created.text}`);
        const first = await report(env, type, body({ 'app:1': 'a', 'lib:1': 'b' }));
        assert.deepEqual([first.status, first.body], [201, 'Snapshot created'], `${type}: ${first.text}`);
        const same = await report(env, type, body({ 'app:1': 'a', 'lib:1': 'b' }));
        assert.deepEqual([same.status, same.body], [200, 'No new snapshot created'], type);
        const changed = await report(env, type, body({ 'app:2': 'c', 'lib:1': 'b' }));
        assert.equal(changed.status, 201, type);
        const latest = await t.http.get(`/api/v2/environments/acme/${env}/snapshots/-1`);
        assert.equal(latest.status, 200, type);
        assert.equal(latest.body.index, 2, type);
        assert.deepEqual(
          latest.body.artifacts.map((a: { artifact_name: string; fingerprint: string }) => [
            a.artifact_name,
            a.fingerprint,
          ]),
          [
            ['lib:1', fp('b')],
            ['app:2', fp('c')],
          ],
          `${type}: the unresolved ECS image is left out`,
        );
        const events = await t.http.get(`/api/v2/environments/acme/${env}/events`);
        assert.deepEqual(
          events.body.map((e: { event_type: string; artifact_name: string; snapshot_index: number }) => [
            e.snapshot_index,
            e.event_type,
            e.artifact_name,
          ]),
          [
            [1, 'started', 'app:1'],
            [1, 'started', 'lib:1'],
            [2, 'started', 'app:2'],
            [2, 'exited', 'app:1'],
          ],
          type,
        );
        const kosli = await t.http.get(`/api/v2/snapshots/acme/${env}/-1`);
        assert.deepEqual([kosli.status, kosli.body.type], [200, type]);
      }
    });

    it('refuses a report of another type, to an unknown environment, or malformed, naming the problem', async () => {
      const wrong = await report('env-server', 'S3', BODIES.S3({ x: 'd' }));
      assert.deepEqual(
        [wrong.status, wrong.body],
        [
          400,
          {
            message: 'Invalid report data',
            errors: { environment: 'the environment is of type server, not S3' },
          },
        ],
      );
      const unknown = await report('nowhere', 'server', BODIES.server({ x: 'd' }));
      assert.deepEqual([unknown.status, unknown.body], [404, { message: 'Environment not found' }]);
      const bad = await report('env-ecs', 'ECS', {
        artifacts: [{ digests: { x: 'nothex' }, creationTimestamp: 1 }],
      });
      assert.equal(bad.status, 400);
      assert.deepEqual(Object.keys(bad.body.errors).sort(), [
        'artifacts[0].digests.x',
        'artifacts[0].taskArn',
      ]);
      const type = await report('env-server', 'mainframe', BODIES.server({ x: 'd' }));
      assert.equal(type.status, 404);
    });

    it('lets a snapshotter report but not a reader', async () => {
      await t.http.post('/api/v2/service-accounts/acme').send({ name: 'viewer', privilege: 'reader' });
      const key = (await t.http.post('/api/v2/service-accounts/acme/viewer/api-keys').send({})).body.key;
      const asViewer = await request(t.server)
        .put('/api/v2/environments/acme/env-server/report/server')
        .set('Authorization', `Bearer ${key}`)
        .send(BODIES.server({ x: 'd' }));
      assert.equal(asViewer.status, 403);
    });

    it('accepts what the Kosli CLI sends on create, and names the refused value', async () => {
      const deprecated = await t.http.put('/api/v2/environments/acme').send({
        name: 'strict',
        type: 'K8S',
        description: '',
        include_scaling: true,
        require_provenance: true,
      });
      assert.equal(deprecated.status, 201);
      assert.equal(deprecated.body.include_scaling, false);
      const type = await t.http.put('/api/v2/environments/acme').send({ name: 'x', type: 'k8s' });
      assert.equal(type.status, 400);
      assert.match(type.body.errors.type, /'k8s'/);
      const name = await t.http.put('/api/v2/environments/acme').send({ name: 'foo bar', type: 'K8S' });
      assert.match(name.body.errors.name, /'foo bar'/);
    });

    it('archives: no reports, out of the list unless asked; creating it again restores it', async () => {
      await t.http.put('/api/v2/environments/acme').send({ name: 'old', type: 'server' });
      const archived = await t.http.put('/api/v2/environments/acme/old/archive');
      assert.deepEqual([archived.status, archived.body], [200, 'Environment archived']);
      const refused = await report('old', 'server', BODIES.server({ x: 'd' }));
      assert.deepEqual(
        [refused.status, refused.body.message],
        [400, "Environment 'old' is archived and takes no reports"],
      );
      const names = async (query = '') =>
        (await t.http.get(`/api/v2/environments/acme${query}`)).body.map((e: { name: string }) => e.name);
      assert.ok(!(await names()).includes('old'));
      assert.deepEqual(await names('?archived=true'), ['old']);
      assert.equal((await t.http.get('/api/v2/environments/acme/old')).body.archived, true);
      const missing = await t.http.put('/api/v2/environments/acme/nowhere/archive');
      assert.deepEqual(
        [missing.status, missing.body.message],
        [404, "Environment named 'nowhere' does not exist for organization 'acme'"],
      );
      assert.equal(
        (await t.http.put('/api/v2/environments/acme').send({ name: 'old', type: 'server' })).status,
        200,
      );
      assert.ok((await names()).includes('old'));
      await t.http.put('/api/v2/environments/acme/old/archive');
      assert.equal((await t.http.put('/api/v2/environments/acme/old/unarchive')).status, 200);
      assert.equal((await report('old', 'server', BODIES.server({ x: 'd' }))).status, 201);
    });

    it('renames: the new name goes on from what ran, the old one reads as it was before, and can be used again', async () => {
      await t.http
        .put('/api/v2/environments/acme')
        .send({ name: 'blue', type: 'server', description: 'Blue' });
      await report('blue', 'server', BODIES.server({ 'app:1': 'a' }));
      await t.http.patch('/api/v2/tags/acme/environment/blue').send({ set_tags: { team: 'shop' } });
      const before = await stepInstant(t);
      const renamed = await t.http.put('/api/v2/environments/acme/blue/rename').send({ new_name: 'green' });
      assert.equal(renamed.status, 200, renamed.text);
      assert.deepEqual(
        [renamed.body.name, renamed.body.type, renamed.body.description, renamed.body.tags],
        ['green', 'server', 'Blue', { team: 'shop' }],
      );
      assert.equal((await t.http.get('/api/v2/environments/acme/blue')).status, 404);
      assert.equal((await t.http.get(`/api/v2/environments/acme/blue?at=${before}`)).body.name, 'blue');
      assert.equal((await t.http.get(`/api/v2/environments/acme/green?at=${before}`)).status, 404);
      assert.equal((await t.http.get(`/api/v2/environments/acme/blue/snapshots/1?at=${before}`)).status, 200);
      // What ran goes on running: no snapshot; a change is snapshot 2.
      assert.equal((await report('green', 'server', BODIES.server({ 'app:1': 'a' }))).status, 200);
      assert.equal((await report('green', 'server', BODIES.server({ 'app:2': 'b' }))).status, 201);
      const two = await t.http.get('/api/v2/environments/acme/green/snapshots/-1');
      assert.equal(two.body.index, 2);
      const list = (await t.http.get('/api/v2/environments/acme')).body.map((e: { name: string }) => e.name);
      assert.ok(list.includes('green') && !list.includes('blue'));
      const kosli = await t.http.get('/api/v2/snapshots/acme/green');
      assert.deepEqual(
        kosli.body.map((s: { index: number }) => s.index),
        [2],
      );
      const again = await t.http.put('/api/v2/environments/acme').send({ name: 'blue', type: 'S3' });
      assert.equal(again.status, 201);
      assert.equal((await report('blue', 'S3', BODIES.S3({ 'site.zip': 'c' }))).status, 201);
      const reused = await t.http.get('/api/v2/snapshots/acme/blue');
      assert.deepEqual(
        reused.body.map((s: { index: number }) => s.index),
        [2],
        'its own snapshots, numbered after the old ones',
      );
      const taken = await t.http.put('/api/v2/environments/acme/green/rename').send({ new_name: 'blue' });
      assert.equal(taken.status, 409);
      const illegal = await t.http
        .put('/api/v2/environments/acme/green/rename')
        .send({ new_name: 'new name' });
      assert.deepEqual(
        [illegal.status, illegal.body.message],
        [
          400,
          "'new name' is an invalid name for environments. Valid names should start with an alphanumeric and only contain alphanumeric characters, '.', '-' and '_'.",
        ],
      );
      const missing = await t.http.put('/api/v2/environments/acme/nowhere/rename').send({ new_name: 'x' });
      assert.equal(missing.status, 404);
    });

    it('joins a physical environment to a logical one', async () => {
      await t.http.put('/api/v2/environments/acme').send({ name: 'everything', type: 'logical' });
      const joined = await t.http
        .put('/api/v2/environments/acme/everything/join')
        .send({ physical_env_name: 'env-server' });
      assert.equal(joined.status, 200, joined.text);
      assert.deepEqual(joined.body.included_environments, ['env-server']);
      const logical = await t.http
        .put('/api/v2/environments/acme/everything/join')
        .send({ physical_env_name: 'everything' });
      assert.equal(logical.status, 400);
      const notLogical = await t.http
        .put('/api/v2/environments/acme/env-server/join')
        .send({ physical_env_name: 'env-s3' });
      assert.equal(notLogical.status, 400);
      const unknown = await t.http
        .put('/api/v2/environments/acme/everything/join')
        .send({ physical_env_name: 'nope' });
      assert.equal(unknown.status, 404);
    });

    it('lists by name, type and tag, sorted and paged when a page is asked for', async () => {
      const list = (query: string) => t.http.get(`/api/v2/environments/acme?${query}`);
      const page = await list('page=1&per_page=2&name=env-');
      assert.deepEqual(
        [
          page.body.page,
          page.body.per_page,
          page.body.total_count,
          page.body.total_pages,
          page.body.environments.length,
        ],
        [1, 2, 7, 4, 2],
      );
      const beyond = await list('page=99&per_page=50');
      assert.deepEqual(beyond.body.environments, []);
      const names = (res: { status: number; text: string; body: { name: string }[] }) => {
        assert.equal(res.status, 200, res.text);
        return res.body.map((e) => e.name);
      };
      assert.deepEqual(names(await list('name=env-&type=S3&type=lambda')), ['env-lambda', 'env-s3']);
      assert.deepEqual(names(await list('name=env-&sort=name&sort_direction=desc')).slice(0, 2), [
        'env-server',
        'env-s3',
      ]);
      await t.http.patch('/api/v2/tags/acme/environment/env-docker').send({ set_tags: { team: 'platform' } });
      assert.deepEqual(names(await list('tag=team:platform')), ['env-docker']);
      assert.deepEqual(names(await list('tag=team')), ['env-docker', 'green']);
      assert.deepEqual(names(await list('name=no-such-environment')), []);
      assert.equal((await list('sort=colour')).status, 400);
    });
  });
}
