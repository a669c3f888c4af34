import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Mode, startApp, TestApp } from './support/app';
import { binary, textOf } from './support/pdf';
import { settle } from './support/time-travel';

const A = 'a1'.repeat(32);
const X = 'c3'.repeat(32);
const pod = (image: string, fingerprint: string, n = 1) => ({
  creationTimestamp: 1_790_000_000,
  digests: { [image]: `sha256:${fingerprint}` },
  namespace: 'shop',
  podName: `${image.replace(/\W/g, '-')}-${n}`,
});
const fingerprint = (i: number) => i.toString(16).padStart(64, 'e');

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`environment audit PDF (${mode} mode)`, () => {
    let t: TestApp;
    let first: number;
    const pdf = async (query = '', env = 'prod') => {
      const res = await t.http
        .get(`/api/v2/environments/acme/${env}/audit_pdf${query}`)
        .buffer(true)
        .parse(binary);
      return { status: res.status, text: res.status === 200 ? textOf(res.body as Buffer) : String(res.body) };
    };

    before(async () => {
      t = await startApp({ mode });
      await t.http.put('/api/v2/flows/acme').send({ name: 'shop' });
      await t.http.put('/api/v2/trails/acme/shop').send({
        name: 'build-1',
        git_commit_info: { sha1: 'aaa111', message: 'basket', author: 'grace', branch: 'main' },
      });
      await t.http
        .post('/api/v2/artifacts/acme/shop')
        .send({ fingerprint: A, filename: 'shop:1', trail_name: 'build-1' });
      await t.http
        .post('/api/v2/attestations/acme/shop/trail/build-1/generic')
        .send({ attestation_name: 'smoke', is_compliant: true });
      await t.http
        .put('/api/v2/environments/acme')
        .send({ name: 'prod', type: 'K8S', description: 'production' });
      await t.http.put('/api/v2/environments/acme/prod/report/K8S').send({ artifacts: [pod('shop:1', A)] });
      await settle(t);
      // Now, pinned: the instant of the latest event (the first report's).
      first = (await t.http.get('/api/v2/audit/acme/changes?per_page=1')).body.at;
      await t.http
        .put('/api/v2/environments/acme/prod/report/K8S')
        .send({ artifacts: [pod('shop:1', A), pod('cache:9', X)] });
      await settle(t);
    });
    after(async () => t.close());

    it('shows what runs with its provenance, commit, compliance and reasons; the changes; the snapshots', async () => {
      const { status, text } = await pdf();
      assert.equal(status, 200, text);
      for (const expected of [
        'Environment audit report',
        'prod (K8S) production',
        'none attached',
        '#2, recorded',
        'shop:1',
        'shop/build-1',
        'aaa111',
        'grace',
        `Fingerprint ${A}`,
        `Fingerprint ${X}`,
        'its trails are compliant: shop/build-1',
        'no trail reported this artifact',
        'cache:9 started (1 instance)',
        'shop:1 started (1 instance)',
      ]) {
        assert.ok(text.includes(expected), `the report shows ${expected}:\n${text}`);
      }
      assert.match(text, /Compliance\s+NON-COMPLIANT/);
      assert.match(text, /#2\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\s+2\s+NON-COMPLIANT/);
      assert.match(text, /#1\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\s+1\s+COMPLIANT/);
      assert.match(text, /Page 1 of \d/);
    });

    it('at an earlier instant shows what ran then', async () => {
      const { text } = await pdf(`?at=${first}`);
      assert.ok(text.includes('#1, recorded'), text);
      assert.ok(!text.includes('cache:9'), 'cache:9 started later');
      const [, unix] = /As of\s+\S+ \(UNIX (\d+\.\d{6})\)/.exec(text)!;
      assert.equal(Math.round(Number(unix) * 1e6), Math.round(first * 1e6));
      assert.ok(text.includes(`acme · environment prod · as of `), 'the running header');
    });

    it('bounds the changes by from and to (ISO or UNIX); refuses bad input with the spec body', async () => {
      const { text } = await pdf(
        `?from=${encodeURIComponent(new Date((first + 0.001) * 1000).toISOString())}`,
      );
      assert.ok(text.includes('cache:9 started'), text);
      assert.ok(!text.includes('shop:1 started'), 'shop:1 started before from');
      const bad = await t.http.get(
        '/api/v2/environments/acme/prod/audit_pdf?from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z',
      );
      assert.deepEqual(
        [bad.status, bad.body.message, Object.keys(bad.body.errors)],
        [400, 'Input payload validation failed', ['from']],
      );
      const notIso = await t.http.get('/api/v2/environments/acme/prod/audit_pdf?to=tomorrow');
      assert.deepEqual([notIso.status, Object.keys(notIso.body.errors)], [400, ['to']]);
      const missing = await t.http.get('/api/v2/environments/acme/nowhere/audit_pdf');
      assert.deepEqual(
        [missing.status, missing.body],
        [404, { message: 'Environment not found' }],
      );
    });

    it('runs over pages with a header and page numbers on each when many artifacts run', async () => {
      await t.http.put('/api/v2/environments/acme').send({ name: 'big', type: 'K8S' });
      const artifacts = Array.from({ length: 80 }, (_, i) => pod(`svc-${i}:1`, fingerprint(i)));
      assert.equal(
        (await t.http.put('/api/v2/environments/acme/big/report/K8S').send({ artifacts })).status,
        201,
      );
      await settle(t);
      const { status, text } = await pdf('', 'big');
      assert.equal(status, 200);
      const pages = Number(/Page 1 of (\d+)/.exec(text)![1]);
      assert.ok(pages >= 3, `${pages} pages`);
      assert.equal(text.split('acme · environment big · as of').length - 1, pages, 'a header on every page');
      for (let i = 0; i < 80; i++) assert.ok(text.includes(`Fingerprint ${fingerprint(i)}`), `artifact ${i}`);
    });
  });
}
