import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PDF_RENDERER } from '#des/platform';
import type { ChromiumPdfRenderer } from '#des/reports';
import { Mode, modeEnv, startApp, TestApp } from './support/app';
import { checkpointCovering } from './support/ledger';
import { binary, textOf } from './support/pdf';

const FP = 'ab'.repeat(32);
const HOSTILE = '<script>alert("pwned")</script> & <b>bold</b>';

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`trail audit PDF (${mode} mode)`, () => {
    let t: TestApp;
    before(async () => {
      // Seven reports of one organization render at once below: over its default of heavy answers in flight.
      t = await startApp({
        mode,
        env: await modeEnv(mode, { DES_ORG_HEAVY_OPERATIONS: '8', DES_HEAVY_OPERATIONS: '8' }),
      });
      await t.http.put('/api/v2/flows/acme').send({ name: 'payments' });
      await t.http.put('/api/v2/trails/acme/payments').send({
        name: 'release-7',
        description: HOSTILE,
        git_commit_info: { sha1: 'deadbeefcafe', message: 'Ship it', author: 'grace', branch: 'main' },
      });
      await t.http
        .post('/api/v2/artifacts/acme/payments')
        .send({ fingerprint: FP, filename: 'payments.jar', trail_name: 'release-7' });
      await t.http.post('/api/v2/attestations/acme/payments/trail/release-7/junit').send({
        attestation_name: 'unit-tests',
        junit_results: [{ name: 'all', tests: 10, failures: 0, errors: 0 }],
      });
      await t.http.post('/api/v2/attestations/acme/payments/trail/release-7/snyk').send({
        attestation_name: 'dependency-scan',
        artifact_fingerprint: FP,
        snyk_results: { vulnerabilities: [{ id: 'SNYK-JAVA-1' }] },
      });
    });
    after(async () => t.close());

    const download = (path = '/api/v2/trails/acme/payments/release-7/audit_pdf') =>
      t.http.get(path).buffer(true).parse(binary);

    it('renders the trail: commit, compliance, artifacts, every attestation with its status, values as text', async () => {
      const res = await download();
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], 'application/pdf');
      const pdf = res.body as Buffer;
      assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
      const text = textOf(pdf);
      for (const expected of [
        'Trail audit report',
        'acme',
        'payments',
        'release-7',
        'deadbeefcafe',
        'Ship it',
        'payments.jar',
        FP,
      ]) {
        assert.ok(text.includes(expected), `PDF shows ${expected}`);
      }
      assert.match(text, /unit-tests\s+junit\s+COMPLIANT/);
      assert.match(text, /dependency-scan\s+snyk\s+NON-COMPLIANT/);
      assert.match(text, /Compliance\s+NON-COMPLIANT/);
      assert.ok(text.includes('<script>alert("pwned")</script>'), 'the script is shown as text, not run');
      assert.ok(text.includes('<b>bold</b>'));
      assert.match(text, /Timeline/);
    });

    it('prints its instant exactly, with the signed checkpoint covering it that GET /ledger/{org}/checkpoint?tree_size= answers', async () => {
      // Every event so far under a checkpoint: the report now and at the head's instant both print one.
      await checkpointCovering(t, 'acme');
      for (const pinned of [false, true]) {
        const at = pinned ? (await t.http.get('/api/v2/ledger/acme/head')).body.recorded_at : undefined;
        const path = `/api/v2/trails/acme/payments/release-7/audit_pdf${at === undefined ? '' : `?at=${at}`}`;
        const text = textOf((await download(path)).body as Buffer);
        const asOf = /As of\s+(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z) \(UNIX (\d+\.\d{6})\)/.exec(text);
        assert.ok(asOf, text);
        const [, iso, unix] = asOf;
        assert.equal(
          Date.parse(iso.slice(0, 19) + 'Z') / 1000 + Number(iso.slice(20, 26)) / 1e6,
          Number(unix),
        );
        if (at !== undefined) assert.equal(Math.round(Number(unix) * 1e6), Math.round(at * 1e6));
        const printed = /Signed checkpoint Tree size (\d+), root ([^\s,]+)/.exec(text.replace(/\s+/g, ' '));
        assert.ok(printed, text);
        const kept = (await t.http.get(`/api/v2/ledger/acme/checkpoint?tree_size=${printed[1]}`)).body;
        assert.equal(kept.root_hash, printed[2]);
        assert.ok(text.includes(`acme · trail payments/release-7 · as of ${iso}`), 'the running header');
        assert.match(text, /Page 1 of 1/);
      }
    });

    it('summarises each attestation’s evidence: junit counts, scan findings', async () => {
      const text = textOf((await download()).body as Buffer);
      assert.match(text, /10 tests in 1 suite: 0 failures, 0 errors, 0 skipped/);
      assert.match(text, /1 finding\b/);
      assert.ok(text.includes(`Fingerprint ${FP}`), 'a fingerprint on one line');
    });

    it('answers 404 `Flow or trail not found` for either', async () => {
      for (const path of [
        '/api/v2/trails/acme/ghost/release-7/audit_pdf',
        '/api/v2/trails/acme/payments/ghost/audit_pdf',
      ]) {
        const res = await t.http.get(path);
        assert.deepEqual([res.status, res.body], [404, { message: 'Flow or trail not found' }]);
      }
    });

    it('keeps each report to its own trail when renders overlap and pages are reused', async () => {
      await t.http
        .put('/api/v2/trails/acme/payments')
        .send({ name: 'hotfix-9', description: 'only in the hotfix' });
      const trails = ['release-7', 'hotfix-9', 'release-7', 'hotfix-9', 'hotfix-9', 'release-7', 'hotfix-9'];
      const texts = await Promise.all(
        trails.map(async (trail) => {
          const res = await download(`/api/v2/trails/acme/payments/${trail}/audit_pdf`);
          assert.equal(res.status, 200);
          return textOf(res.body as Buffer);
        }),
      );
      texts.forEach((text, i) => {
        const other = trails[i] === 'release-7' ? 'hotfix-9' : 'release-7';
        assert.ok(text.includes(trails[i]), `report ${i} shows ${trails[i]}`);
        assert.ok(!text.includes(other), `report ${i} shows nothing of ${other}`);
      });
      // Sequentially too: the page a report was rendered on carries nothing into the next.
      const hotfix = textOf(
        (await download('/api/v2/trails/acme/payments/hotfix-9/audit_pdf')).body as Buffer,
      );
      assert.ok(hotfix.includes('only in the hotfix') && !hotfix.includes('Ship it'));
    });

    it('recovers from a browser crash on the next request', async () => {
      const renderer = t.app.get<ChromiumPdfRenderer>(PDF_RENDERER);
      const pid = await renderer.pid();
      assert.ok(pid);
      process.kill(pid!, 'SIGKILL');
      await new Promise((r) => setTimeout(r, 300));
      const res = await download();
      assert.equal(res.status, 200);
      assert.ok(textOf(res.body as Buffer).includes('release-7'));
      assert.notEqual(await renderer.pid(), pid, 'a new browser was launched');
    });
  });
}
