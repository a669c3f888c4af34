import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import request from 'supertest';
import { Mode, startApp, TestApp } from './support/app';

const fp = (c: string) => c.repeat(64);
const pod = (name: string, image: string, c: string) => ({
  creationTimestamp: 1_790_000_000,
  digests: { [image]: `sha256:${fp(c)}` },
  namespace: 'shop',
  podName: name,
});
const pods = (image: string, c: string, n: number) =>
  Array.from({ length: n }, (_, i) => pod(`${image.split(':')[0]}-${c}-${i}`, image, c));

const INJECTION = "=cmd|' /C calc'!A0";

/** The scripted history: [pods, expected status, expected snapshot index after]. */
const HISTORY: [ReturnType<typeof pod>[], number, number][] = [
  [[...pods('web:1', 'a', 2), ...pods('db:5', 'b', 1)], 201, 1], // 1 deploy web:1 and db:5
  [[...pods('web:1', 'a', 2), ...pods('db:5', 'b', 1)], 200, 1], // 2 no-op
  [[...pods('web:1', 'a', 5), ...pods('db:5', 'b', 1)], 200, 1], // 3 scale only
  [[...pods('web:2', 'c', 3), ...pods('db:5', 'b', 1)], 201, 2], // 4 replace web:1 → web:2
  [[...pods('web:2', 'c', 3), ...pods('db:5', 'b', 1), ...pods('cache:7', 'd', 2)], 201, 3], // 5 add cache
  [[...pods('web:2', 'c', 3), ...pods('db:5', 'b', 1), ...pods('cache:7', 'd', 2)], 200, 3], // 6 no-op
  [[...pods('web:2', 'c', 3), ...pods('cache:7', 'd', 2)], 201, 4], // 7 db exits
  [[...pods('web:3', 'e', 3), ...pods(INJECTION, 'f', 1)], 201, 5], // 8 web:2 → web:3, cache exits, a hostile name starts
  [[...pods('web:3', 'e', 4), ...pods(INJECTION, 'f', 1)], 200, 5], // 9 scale only
  [[], 201, 6], // 10 everything exits
];

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`environments (${mode} mode)`, () => {
    let t: TestApp;
    const times: number[] = [];
    before(async () => {
      t = await startApp({ mode });
      const created = await t.http
        .put('/api/v2/environments/acme')
        .send({ name: 'prod', type: 'K8S', description: 'Production' });
      assert.equal(created.status, 201);
      for (const [i, [report, status]] of HISTORY.entries()) {
        const res = await t.http.put('/api/v2/environments/acme/prod/report/K8S').send({ artifacts: report });
        assert.equal(res.status, status, `report ${i + 1}: ${res.text}`);
        assert.match(res.headers['content-type'], /^application\/json/);
        assert.equal(res.body, status === 201 ? 'Snapshot created' : 'No new snapshot created');
        times.push(Date.now() / 1000);
        await new Promise((r) => setTimeout(r, 5));
      }
    });
    after(async () => t.close());

    it('creates, updates and lists environments with every field of the spec', async () => {
      const env = await t.http.get('/api/v2/environments/acme/prod');
      assert.equal(env.status, 200);
      assert.deepEqual(Object.keys(env.body).sort(), [
        'archived',
        'description',
        'html_url',
        'include_scaling',
        'included_environments',
        'last_changed_at',
        'last_modified_at',
        'last_reported_at',
        'name',
        'org',
        'policies',
        'state',
        'tags',
        'type',
      ]);
      assert.equal(env.body.include_scaling, false);
      assert.equal(env.body.state, true, 'report 10 left it running nothing: compliant');
      assert.ok(env.body.last_modified_at < env.body.last_changed_at, 'created before the first report');
      assert.ok(env.body.last_changed_at <= env.body.last_reported_at);
      const updated = await t.http
        .put('/api/v2/environments/acme')
        .send({ name: 'prod', type: 'K8S', description: 'Prod EU' });
      assert.equal(updated.status, 200);
      assert.equal(updated.body.description, 'Prod EU');
      assert.ok(
        updated.body.last_modified_at > env.body.last_modified_at,
        'an update moves last_modified_at',
      );
      assert.equal(updated.body.last_changed_at, env.body.last_changed_at, 'but not last_changed_at');
      const list = await t.http.get('/api/v2/environments/acme');
      assert.deepEqual(
        list.body.map((e: { name: string }) => e.name),
        ['prod'],
      );
    });

    it('moves last_reported_at on a no-op report, and last_changed_at only on a change', async () => {
      await t.http.put('/api/v2/environments/acme').send({ name: 'stage', type: 'K8S' });
      const report = { artifacts: pods('web:1', 'a', 1) };
      await t.http.put('/api/v2/environments/acme/stage/report/K8S').send(report);
      const first = (await t.http.get('/api/v2/environments/acme/stage')).body;
      await new Promise((r) => setTimeout(r, 10));
      assert.equal((await t.http.put('/api/v2/environments/acme/stage/report/K8S').send(report)).status, 200);
      const second = (await t.http.get('/api/v2/environments/acme/stage')).body;
      assert.ok(second.last_reported_at > first.last_reported_at);
      assert.equal(second.last_changed_at, first.last_changed_at);
    });

    it('keeps each snapshot: running artifacts with instance counts; -1 is the latest', async () => {
      const snap = async (i: number | string) =>
        (await t.http.get(`/api/v2/environments/acme/prod/snapshots/${i}`)).body;
      const running = (s: { artifacts: { artifact_name: string; instances: number }[] }) =>
        s.artifacts.map((a) => `${a.artifact_name}×${a.instances}`).sort();
      assert.deepEqual(running(await snap(1)), ['db:5×1', 'web:1×2']);
      assert.deepEqual(running(await snap(2)), ['db:5×1', 'web:2×3']);
      assert.deepEqual(running(await snap(3)), ['cache:7×2', 'db:5×1', 'web:2×3']);
      assert.deepEqual(running(await snap(4)), ['cache:7×2', 'web:2×3']);
      assert.deepEqual(running(await snap(5)), [`${INJECTION}×1`, 'web:3×3']);
      assert.deepEqual(running(await snap(6)), []);
      assert.equal((await snap(-1)).index, 6);
      assert.deepEqual(
        [(await snap(2)).compliant, (await snap(6)).compliant],
        [false, true],
        'artifacts without provenance are not compliant; an empty snapshot is',
      );
      assert.equal(
        (await snap(2)).artifacts.find((a: { artifact_name: string }) => a.artifact_name === 'web:2').pods
          .length,
        3,
      );
      const missing = await t.http.get('/api/v2/environments/acme/prod/snapshots/7');
      assert.deepEqual([missing.status, missing.body.message], [404, 'Snapshot not found']);
      const bad = await t.http.get('/api/v2/environments/acme/prod/snapshots/zero');
      assert.deepEqual([bad.status, bad.body.message], [400, 'Input payload validation failed']);
    });

    it('pages deployments newest first, with replaced artifacts and links', async () => {
      const all = await t.http.get('/api/v2/environments/acme/prod/deployments?per_page=100');
      assert.equal(all.status, 200);
      assert.deepEqual(
        all.body.deployments.map(
          (d: { artifact_name: string; snapshot_index: number }) => `${d.snapshot_index}:${d.artifact_name}`,
        ),
        // Newest first; within a snapshot, by fingerprint.
        ['5:web:3', `5:${INJECTION}`, '3:cache:7', '2:web:2', '1:web:1', '1:db:5'],
      );
      const web2 = all.body.deployments.find((d: { artifact_name: string }) => d.artifact_name === 'web:2');
      assert.deepEqual(web2.replaced_artifact, {
        fingerprint: fp('a'),
        artifact_name: 'web:1',
        snapshot_index: 1,
        commit: null,
      });
      assert.deepEqual(
        all.body.deployments.find((d: { artifact_name: string }) => d.artifact_name === 'web:3')
          .replaced_artifact.artifact_name,
        'web:2',
      );
      assert.equal(
        all.body.deployments.find((d: { artifact_name: string }) => d.artifact_name === 'cache:7')
          .replaced_artifact,
        null,
      );
      for (const field of [
        'fingerprint',
        'deployed_at',
        'artifact_name',
        'compliance',
        'env_name',
        'snapshot_index',
        'commit',
        'replaced_artifact',
        'diff_url',
        '_links',
      ]) {
        assert.ok(field in web2, field);
      }
      assert.equal(web2.compliance, false, 'no provenance: not compliant');

      const pages = [];
      for (let page = 1; page <= 3; page++) {
        const res = await t.http.get(`/api/v2/environments/acme/prod/deployments?per_page=2&page=${page}`);
        assert.deepEqual(
          [res.body.page, res.body.per_page, res.body.total_pages, res.body.total_count],
          [page, 2, 3, 6],
        );
        pages.push(...res.body.deployments.map((d: { artifact_name: string }) => d.artifact_name));
        assert.equal(res.body._links.prev === null, page === 1);
        assert.equal(res.body._links.next === null, page === 3);
        if (res.body._links.next) {
          const next = await t.http.get(res.body._links.next);
          assert.equal(next.body.page, page + 1);
        }
      }
      assert.deepEqual(
        pages,
        all.body.deployments.map((d: { artifact_name: string }) => d.artifact_name),
      );

      const future = await t.http.get(
        '/api/v2/environments/acme/prod/deployments?from=2099-01-01T00:00:00Z&to=2099-02-01T00:00:00Z',
      );
      assert.deepEqual([future.body.total_count, future.body.deployments], [0, []]);
      const window = await t.http.get(
        `/api/v2/environments/acme/prod/deployments?from=${new Date(times[2] * 1000).toISOString()}&to=${new Date(times[6] * 1000).toISOString()}`,
      );
      assert.deepEqual(
        window.body.deployments.map((d: { artifact_name: string }) => d.artifact_name),
        ['cache:7', 'web:2'],
      );
    });

    it('refuses bad deployment queries with the spec body', async () => {
      for (const q of [
        'page=0',
        'per_page=101',
        'per_page=0',
        'page=x',
        'from=yesterday',
        'to=2024-13-01',
        'colour=red',
      ]) {
        const res = await t.http.get(`/api/v2/environments/acme/prod/deployments?${q}`);
        assert.deepEqual([res.status, res.body.message], [400, 'Input payload validation failed'], q);
        assert.ok(res.body.errors && Object.keys(res.body.errors).length, q);
      }
      const unknown = await t.http.get('/api/v2/environments/acme/nowhere/deployments');
      assert.deepEqual([unknown.status, unknown.body], [404, { message: 'Environment not found' }]);
    });

    it('exports the audit log as CSV, oldest first, one row per entry, injection neutralised', async () => {
      const res = await t.http.get('/api/v2/environments/acme/prod/auditlog');
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
      const rows = parse(res.text, { columns: true }) as Record<string, string>[];
      assert.deepEqual(Object.keys(rows[0]), [
        'timestamp',
        'timestamp_iso',
        'event_type',
        'environment',
        'snapshot_index',
        'artifact_name',
        'fingerprint',
        'instances',
        'flow_names',
        'trail_names',
        'repo_names',
        'commit',
        'compliant',
        'description',
      ]);
      assert.deepEqual(
        rows.map((r) => `${r.snapshot_index} ${r.event_type} ${r.artifact_name} ${r.instances}`),
        [
          '1 started web:1 2',
          '1 started db:5 1',
          '2 started web:2 3',
          '2 exited web:1 2',
          '3 started cache:7 2',
          '4 exited db:5 1',
          '5 started web:3 3',
          `5 started '${INJECTION} 1`,
          '5 exited web:2 3',
          '5 exited cache:7 2',
          '6 exited web:3 3',
          `6 exited '${INJECTION} 1`,
        ],
      );
      assert.ok(rows.every((r) => r.environment === 'prod' && Number(r.timestamp) > 1_700_000_000));
      for (const r of rows) {
        assert.match(r.timestamp_iso, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
        const micros =
          Date.parse(r.timestamp_iso.slice(0, 19) + 'Z') * 1000 + Number(r.timestamp_iso.slice(20, 26));
        assert.equal(micros, Math.round(Number(r.timestamp) * 1e6), 'the ISO column is the same instant');
      }
      assert.ok(
        !res.text.includes(`,${INJECTION}`) && !res.text.includes(`"${INJECTION}`),
        'no cell starts with =',
      );
      const json = await t.http.get('/api/v2/environments/acme/prod/events');
      assert.equal(json.body.length, 12);
      assert.equal(json.body[0].artifact_name, 'web:1');
    });

    it('filters the audit log by time, event type, flow and repo, combined', async () => {
      const csv = async (q: string) =>
        parse((await t.http.get(`/api/v2/environments/acme/prod/auditlog?${q}`)).text, {
          columns: true,
        }) as Record<string, string>[];
      assert.equal((await csv('event_types=exited')).length, 6);
      assert.equal((await csv('event_types=started,exited')).length, 12);
      // Between the answer to report 3 and the answer to report 7: snapshots 2 to 4.
      assert.deepEqual(
        (await csv(`event_types=started&from_timestamp=${times[2]}&to_timestamp=${times[6]}`)).map(
          (r) => r.artifact_name,
        ),
        ['web:2', 'cache:7'],
      );
      assert.deepEqual(
        (await csv(`from_timestamp=${times[2]}&to_timestamp=${times[6]}`)).map(
          (r) => `${r.event_type} ${r.artifact_name}`,
        ),
        ['started web:2', 'exited web:1', 'started cache:7', 'exited db:5'],
      );
      // The same bounds as ISO-8601 with an offset (here +02:00) name the same instants.
      const iso = (at: number) => {
        const micros = Math.round(at * 1e6);
        const local = new Date(Math.floor(micros / 1000) + 2 * 3600_000).toISOString().slice(0, 19);
        return encodeURIComponent(`${local}.${String(micros % 1_000_000).padStart(6, '0')}+02:00`);
      };
      assert.deepEqual(
        (await csv(`from_timestamp=${iso(times[2])}&to_timestamp=${iso(times[6])}`)).map(
          (r) => `${r.event_type} ${r.artifact_name}`,
        ),
        ['started web:2', 'exited web:1', 'started cache:7', 'exited db:5'],
      );
      for (const [q, name] of [
        ['from_timestamp=yesterday', 'from_timestamp'],
        ['to_timestamp=2026-11-23T18:44:00', 'to_timestamp'],
        ['at=2026-13-01T00:00:00Z', 'at'],
      ]) {
        const refused = await t.http.get(`/api/v2/environments/acme/prod/auditlog?${q}`);
        assert.deepEqual(
          [refused.status, refused.body.message, refused.body.errors],
          [
            400,
            'Input payload validation failed',
            {
              [name]: `${name} must be UNIX seconds (e.g. 1795459440) or an ISO-8601 date-time with an offset (e.g. 2026-11-23T18:44:00Z)`,
            },
          ],
          q,
        );
      }
      assert.equal((await csv('flow_names=no provenance')).length, 12, 'no artifact has provenance yet');
      assert.equal((await csv('flow_names=checkout')).length, 0);
      assert.equal((await csv('repo_names=acme/web&event_types=started')).length, 0);
      const bad = await t.http.get('/api/v2/environments/acme/prod/auditlog?event_types=started,deleted');
      assert.deepEqual(
        [bad.status, bad.body.message, Object.keys(bad.body.errors)],
        [400, 'Input payload validation failed', ['event_types']],
      );
      const missing = await t.http.get('/api/v2/environments/acme/nowhere/auditlog');
      assert.deepEqual([missing.status, missing.body.message], [404, 'Environment not found']);
    });

    it('answers report errors: unknown 404, logical 400, malformed 400 naming each field', async () => {
      const unknown = await t.http
        .put('/api/v2/environments/acme/nowhere/report/K8S')
        .send({ artifacts: [] });
      assert.deepEqual([unknown.status, unknown.body], [404, { message: 'Environment not found' }]);
      await t.http
        .put('/api/v2/environments/acme')
        .send({ name: 'everything', type: 'logical', included_environments: ['prod', 'stage'] });
      const logical = await t.http
        .put('/api/v2/environments/acme/everything/report/K8S')
        .send({ artifacts: [] });
      assert.deepEqual(
        [logical.status, logical.body.message, Object.keys(logical.body.errors)],
        [400, 'Invalid report data', ['environment']],
      );
      const bad = await t.http.put('/api/v2/environments/acme/prod/report/K8S').send({
        artifacts: [{ creationTimestamp: 'now', digests: { web: 'sha256:123' }, namespace: 'shop' }],
      });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.message, 'Invalid report data');
      assert.deepEqual(Object.keys(bad.body.errors).sort(), [
        'artifacts[0].creationTimestamp',
        'artifacts[0].digests.web',
        'artifacts[0].podName',
      ]);
    });

    it('validates environments: names, types, members of logical environments only', async () => {
      const cases: [Record<string, unknown>, string[]][] = [
        [{ name: '-bad', type: 'K8S' }, ['name']],
        [{ name: 'ok', type: 'mainframe' }, ['type']],
        [{ name: 'ok', type: 'K8S', included_environments: ['prod'] }, ['included_environments']],
        [
          { name: 'group', type: 'logical', included_environments: ['prod', 'ghost', 'everything'] },
          ['included_environments[1]', 'included_environments[2]'],
        ],
      ];
      for (const [body, fields] of cases) {
        const res = await t.http.put('/api/v2/environments/acme').send(body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.message, 'Input payload validation failed');
        assert.deepEqual(Object.keys(res.body.errors).sort(), fields.sort(), JSON.stringify(body));
      }
      const logical = await t.http.get('/api/v2/environments/acme/everything');
      assert.deepEqual(logical.body.included_environments, ['prod', 'stage']);
    });

    it('lets a snapshotter report but not a reader', async () => {
      await t.http.post('/api/v2/service-accounts/acme').send({ name: 'agent', privilege: 'snapshotter' });
      await t.http.post('/api/v2/service-accounts/acme').send({ name: 'viewer', privilege: 'reader' });
      const agentKey = (await t.http.post('/api/v2/service-accounts/acme/agent/api-keys').send({})).body.key;
      const viewerKey = (await t.http.post('/api/v2/service-accounts/acme/viewer/api-keys').send({})).body
        .key;
      const report = { artifacts: pods('web:9', '9', 1) };
      const asAgent = await request(t.server)
        .put('/api/v2/environments/acme/stage/report/K8S')
        .set('Authorization', `Bearer ${agentKey}`)
        .send(report);
      assert.equal(asAgent.status, 201);
      const asViewer = await request(t.server)
        .put('/api/v2/environments/acme/stage/report/K8S')
        .set('Authorization', `Bearer ${viewerKey}`)
        .send(report);
      assert.equal(asViewer.status, 403);
      assert.equal(
        (
          await request(t.server)
            .get('/api/v2/environments/acme/stage')
            .set('Authorization', `Bearer ${viewerKey}`)
        ).status,
        200,
      );
    });

    it('takes a report of 5,000 pods', async () => {
      await t.http.put('/api/v2/environments/acme').send({ name: 'big', type: 'K8S' });
      const big = Array.from({ length: 5000 }, (_, i) =>
        pod(`p-${i}`, `svc-${i % 250}:1`, (i % 250).toString(16).padStart(2, '0').slice(-1)),
      );
      const many = big.map((p, i) => ({
        ...p,
        digests: { [`svc-${i % 250}:1`]: `sha256:${(i % 250).toString(16).padStart(64, '0')}` },
      }));
      const res = await t.http.put('/api/v2/environments/acme/big/report/K8S').send({ artifacts: many });
      assert.equal(res.status, 201, res.text);
      const latest = (await t.http.get('/api/v2/environments/acme/big/snapshots/-1')).body;
      assert.equal(latest.artifacts.length, 250);
      assert.equal(
        latest.artifacts.reduce((n: number, a: { instances: number }) => n + a.instances, 0),
        5000,
      );
      assert.equal(
        (await t.http.put('/api/v2/environments/acme/big/report/K8S').send({ artifacts: many })).status,
        200,
      );
    });
  });
}
