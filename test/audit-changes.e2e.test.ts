import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { Mode, modeEnv, startApp, TestApp } from './support/app';
import { settle } from './support/time-travel';

const A = 'a1'.repeat(32);
const X = 'c3'.repeat(32);
const B = 'b2'.repeat(32);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const pod = (image: string, fingerprint: string) => ({
  creationTimestamp: 1_790_000_000,
  digests: { [image]: `sha256:${fingerprint}` },
  namespace: 'shop',
  podName: `${image.replace(/\W/g, '-')}-1`,
});

interface Change {
  id: string;
  environment: string;
  snapshot_index: number;
  started_at: number;
  flow: string | null;
  trail: string | null;
  commit: { sha1: string } | null;
  compliant_when_started: boolean;
  compliant: boolean;
  evidence: {
    trail: Record<string, Record<string, unknown>>;
    artifact: Record<string, Record<string, unknown>>;
  };
  gaps: { kind: string; detail: string }[];
}

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`the change population and its sample (${mode} mode)`, () => {
    let t: TestApp;
    let env: NodeJS.ProcessEnv;
    const report = async (name: string, artifacts: ReturnType<typeof pod>[]) => {
      const res = await t.http.put(`/api/v2/environments/acme/${name}/report/K8S`).send({ artifacts });
      assert.equal(res.status, 201, res.text);
      await settle(t);
    };
    const changes = (query = '') => t.http.get(`/api/v2/audit/acme/changes${query}`);

    before(async () => {
      env = await modeEnv(mode);
      t = await startApp({ mode, env });
      await t.http.put('/api/v2/flows/acme').send({
        name: 'shop',
        template: { trail: { attestations: [{ name: 'tests', type: 'junit' }] } },
      });
      await t.http.put('/api/v2/trails/acme/shop').send({
        name: 'build-1',
        git_commit_info: { sha1: 'aaa111', message: 'basket', author: 'grace', branch: 'main' },
      });
      await t.http
        .post('/api/v2/artifacts/acme/shop')
        .send({ fingerprint: A, filename: 'shop:1', trail_name: 'build-1' });
      await t.http.post('/api/v2/attestations/acme/shop/trail/build-1/pull_request').send({
        attestation_name: 'review',
        pull_requests: [{ url: 'https://git.example/pr/1', author: 'ann', approvers: ['ann', 'bob'] }],
      });
      for (const [name, type] of [
        ['prod', 'K8S'],
        ['qa', 'K8S'],
      ]) {
        await t.http.put('/api/v2/environments/acme').send({ name, type });
      }
      await t.http
        .put('/api/v2/environments/acme')
        .send({ name: 'all', type: 'logical', included_environments: ['prod', 'qa'] });
      await report('prod', [pod('shop:1', A), pod('cache:9', X)]); // prod#1: shop:1 (a trail's), cache:9 (none)
      // Recorded after shop:1 started in prod: late evidence there.
      await t.http.post('/api/v2/attestations/acme/shop/trail/build-1/junit').send({
        attestation_name: 'tests',
        junit_results: [{ name: 'all', tests: 3, failures: 0, errors: 0 }],
      });
      await settle(t);
      await report('qa', [pod('shop:1', A)]); // qa#1
      await report('prod', [pod('shop:1', A)]); // prod#2: cache:9 exits; nothing starts
    });
    after(async () => t.close());

    it('lists every change of every physical environment, pinned, with a hash of its ids', async () => {
      const res = await changes();
      assert.equal(res.status, 200, res.text);
      const body = res.body as {
        at: number;
        from: number;
        to: number;
        environments: string[];
        total_count: number;
        population_sha256: string;
        page: number;
        per_page: number;
        total_pages: number;
        changes: Change[];
      };
      assert.deepEqual(body.environments, ['prod', 'qa'], 'logical environments are not walked twice');
      assert.equal(body.to, body.at, 'to defaults to the pin');
      assert.equal(body.from, body.to - 30 * 86_400);
      const ids = body.changes.map((c) => c.id);
      assert.deepEqual(ids, [`prod#1:${A}`, `prod#1:${X}`, `qa#1:${A}`], 'in the order they started');
      assert.equal(body.total_count, 3);
      assert.deepEqual([body.page, body.per_page, body.total_pages], [1, 100, 1]);
      assert.equal(body.population_sha256, sha256([...ids].sort().join('\n')));
      const shop = body.changes.find((c) => c.id === `prod#1:${A}`)!;
      assert.deepEqual([shop.flow, shop.trail, shop.commit?.sha1], ['shop', 'build-1', 'aaa111']);
      assert.deepEqual(shop.evidence.trail.review, {
        type: 'pull_request',
        compliant: true,
        recorded_at: shop.evidence.trail.review.recorded_at,
        authors: ['ann'],
        approvers: ['ann', 'bob'],
      });
      assert.equal(shop.evidence.trail.tests.type, 'junit');
      const kinds = shop.gaps.map((g) => g.kind);
      assert.ok(kinds.includes('late_evidence'), JSON.stringify(shop.gaps));
      assert.ok(kinds.includes('self_approved'), JSON.stringify(shop.gaps));
      assert.equal(shop.compliant_when_started, false, 'its trail lacked the template’s tests then');
      const late = shop.gaps.find((g) => g.kind === 'late_evidence')!;
      assert.match(
        late.detail,
        /trail attestation tests recorded at \d{4}-.*Z, after the artifact started running in prod at \d{4}-.*Z/,
      );
      const cache = body.changes.find((c) => c.id === `prod#1:${X}`)!;
      assert.deepEqual(
        [cache.flow, cache.trail, cache.commit, cache.compliant_when_started, cache.compliant],
        [null, null, null, false, false],
      );
      assert.deepEqual(
        cache.gaps.map((g) => g.kind),
        ['no_provenance', 'non_compliant'],
      );
      const qa = body.changes.find((c) => c.id === `qa#1:${A}`)!;
      assert.equal(
        qa.gaps.some((g) => g.kind === 'late_evidence'),
        false,
        'its evidence was in before it started in qa',
      );
    });

    it('selects environments by name, a logical one by its members; pages; CSV holds the same population', async () => {
      const prod = (await changes('?environments=prod')).body;
      assert.deepEqual([prod.environments, prod.total_count], [['prod'], 2]);
      const all = (await changes('?environments=all')).body;
      assert.deepEqual([all.environments, all.total_count], [['prod', 'qa'], 3]);
      const page2 = (await changes('?per_page=2&page=2')).body;
      assert.deepEqual([page2.total_pages, page2.changes.length, page2.changes[0].id], [2, 1, `qa#1:${A}`]);
      const json = (await changes()).body;
      const csv = await changes(`?at=${json.at}`).set('Accept', 'text/csv');
      assert.equal(csv.status, 200);
      assert.match(csv.headers['content-type'], /^text\/csv/);
      const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
      assert.deepEqual(
        rows.map((r) => r.id),
        json.changes.map((c: Change) => c.id),
      );
      assert.equal(
        sha256(
          rows
            .map((r) => r.id)
            .sort()
            .join('\n'),
        ),
        json.population_sha256,
        'completeness from the CSV alone',
      );
      assert.equal(csv.headers['x-population-sha256'], json.population_sha256);
      const cache = rows.find((r) => r.id === `prod#1:${X}`)!;
      assert.deepEqual(
        [cache.flow, cache.compliant, cache.gaps.split(':')[0]],
        ['', 'false', 'no_provenance'],
      );
      assert.match(rows[0].started_at_iso, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    });

    it('lists only the changes with the gaps asked for, the population’s total and hash still whole', async () => {
      const whole = (await changes()).body;
      const pin = `?at=${whole.at}`;
      const unproven = (await changes(`${pin}&gaps=no_provenance`)).body;
      assert.deepEqual(unproven.gaps, ['no_provenance']);
      assert.deepEqual(
        unproven.changes.map((c: Change) => c.id),
        [`prod#1:${X}`],
      );
      assert.deepEqual(
        [unproven.total_count, unproven.total_pages, unproven.population_total, unproven.population_sha256],
        [1, 1, 3, whole.population_sha256],
      );
      const either = (await changes(`${pin}&gaps=late_evidence,no_provenance&per_page=1&page=2`)).body;
      assert.deepEqual([either.total_count, either.total_pages], [2, 2]);
      assert.deepEqual(
        either.changes.map((c: Change) => c.id),
        [`prod#1:${X}`],
        'paged over the matching changes, in the order they started',
      );
      const csv = await changes(`${pin}&gaps=self_approved`).set('Accept', 'text/csv');
      const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
      assert.deepEqual(
        rows.map((r) => r.id),
        whole.changes
          .filter((c: Change) => c.gaps.some((g) => g.kind === 'self_approved'))
          .map((c: Change) => c.id),
      );
      assert.equal(csv.headers['x-population-total'], '3');
      assert.equal((await changes(`${pin}&gaps=unsigned`)).status, 400);
      assert.deepEqual([whole.gaps, whole.population_total], [[], 3]);
    });

    it('answers the same population again at the same pin, whatever came since; a period bounds it', async () => {
      const pinned = (await changes()).body;
      await report('qa', [pod('shop:1', A), pod('shop:2', B)]); // qa#2: shop:2 starts
      const now = (await changes()).body;
      assert.equal(now.total_count, 4);
      const again = (await changes(`?at=${pinned.at}`)).body;
      assert.deepEqual(
        [again.total_count, again.population_sha256, again.changes],
        [pinned.total_count, pinned.population_sha256, pinned.changes],
      );
      const iso = new Date(Math.floor(pinned.at * 1000)).toISOString();
      const since = (await changes(`?from=${encodeURIComponent(iso)}`)).body;
      assert.deepEqual(
        since.changes.map((c: Change) => c.id),
        [`qa#2:${B}`],
        'from ≤ started_at',
      );
      const before = (await changes(`?to=${now.changes[3].started_at}`)).body;
      assert.equal(before.total_count, 3, 'started_at < to');
    });

    it('draws the same sample from the same seed and pin, also after a restart, as anyone can from the population', async () => {
      const population = (await changes()).body;
      const query = `?size=2&seed=${encodeURIComponent('SOC2 2026 Q4')}&at=${population.at}`;
      const sample = (await t.http.get(`/api/v2/audit/acme/changes/sample${query}`)).body;
      assert.deepEqual(
        [sample.seed, sample.size, sample.at, sample.population_total, sample.population_sha256],
        ['SOC2 2026 Q4', 2, population.at, population.total_count, population.population_sha256],
      );
      const byHand = population.changes
        .map((c: Change) => c.id)
        .sort((a: string, b: string) => (sha256(`SOC2 2026 Q4:${a}`) < sha256(`SOC2 2026 Q4:${b}`) ? -1 : 1))
        .slice(0, 2);
      assert.deepEqual(
        sample.changes.map((c: Change) => c.id),
        byHand,
      );
      assert.ok(sample.changes[0].evidence && Array.isArray(sample.changes[0].gaps));
      await t.close();
      t = await startApp({ mode, env, bootstrap: false, key: t.key });
      await settle(t);
      const afterRestart = (await t.http.get(`/api/v2/audit/acme/changes/sample${query}`)).body;
      assert.deepEqual(afterRestart, sample);
    });

    it('refuses bad input with the spec’s error body', async () => {
      const cases: [string, number, string, string][] = [
        [
          '?from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z',
          400,
          'Input payload validation failed',
          'from',
        ],
        ['?environments=prod,nowhere', 404, 'Environment not found', 'environments'],
        ['?per_page=1001', 400, 'Input payload validation failed', 'per_page'],
        ['?at=yesterday', 400, 'Input payload validation failed', 'at'],
        ['/sample?size=0&seed=x', 400, 'Input payload validation failed', 'size'],
        ['/sample?size=501&seed=x', 400, 'Input payload validation failed', 'size'],
        [`/sample?size=5&seed=${'s'.repeat(129)}`, 400, 'Input payload validation failed', 'seed'],
        ['/sample?size=5', 400, 'Input payload validation failed', 'seed'],
      ];
      for (const [query, status, message, field] of cases) {
        const res = await t.http.get(`/api/v2/audit/acme/changes${query}`);
        assert.deepEqual(
          [res.status, res.body.message, Object.keys(res.body.errors ?? {})],
          [status, message, [field]],
          query,
        );
      }
      const missing = await t.http.get('/api/v2/audit/acme/changes?environments=nowhere');
      assert.match(missing.body.errors.environments, /'nowhere' does not exist/);
    });
  });
}
