import AxeBuilder from '@axe-core/playwright';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import request from 'supertest';
import { isoMicros } from '#des/kernel';
import { type Mode, modeEnv, startApp, type TestApp } from './support/app';
import { checkpointCovering } from './support/ledger';
import { settle } from './support/time-travel';
import { eventually } from './support/processes';

/** Debian's Chromium (npm run setup installs it), or the one PUPPETEER_EXECUTABLE_PATH names. */
const CHROMIUM = process.env.PUPPETEER_EXECUTABLE_PATH ?? '/usr/bin/chromium';
/** Screenshots of each page, for a person to look at (git-ignored; CI keeps them as artifacts). */
const SHOTS = resolve(__dirname, '../../test-results/workspace');

const WEB1 = 'a1'.repeat(32);
const WEB2 = 'b2'.repeat(32);
const CACHE = 'c3'.repeat(32);
const NOTES = 'release notes: basket fixed\n';

const pod = (image: string, fingerprint: string) => ({
  creationTimestamp: 1_790_000_000,
  digests: { [image]: `sha256:${fingerprint}` },
  namespace: 'shop',
  podName: `${image.replace(/\W/g, '-')}-1`,
});

/** Serious and critical axe-core violations on the page as it is now. */
async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.length})`);
}

/**
 * The page's actions (links, buttons, fields, folded details) that Tab never
 * reaches from the top of the page: every one must be reachable by keyboard.
 */
async function unreachableByKeyboard(page: Page): Promise<string[]> {
  // Browser-side code as text: the tests compile without the DOM library.
  const count = await page.evaluate<number>(`(() => {
    const actions = [...document.querySelectorAll(
      'a[href], button:not([disabled]), input:not([disabled]), select, textarea, summary',
    )].filter((e) => e.getClientRects().length > 0);
    actions.forEach((e, i) => e.setAttribute('data-kb', String(i)));
    actions[0]?.focus();
    return actions.length;
  })()`);
  // From the first action, Tab until every one was reached (a date field takes a Tab per part) or long after.
  const reached = new Set<string>(['0']);
  for (let i = 0; reached.size < count && i < count * 6 + 20; i++) {
    await page.keyboard.press('Tab');
    const at = await page.evaluate<string | null>(`document.activeElement?.getAttribute('data-kb') ?? null`);
    if (at !== null) reached.add(at);
  }
  return page.evaluate<string[]>(`(() => {
    const seen = ${JSON.stringify([...reached])};
    return [...document.querySelectorAll('[data-kb]')]
      .filter((e) => !seen.includes(e.getAttribute('data-kb')))
      .map((e) => e.tagName.toLowerCase() + ' "' + (e.textContent ?? '').trim().slice(0, 40) + '"');
  })()`);
}

/** The values of an attribute on the rows a locator finds, in page order. */
const attributes = (rows: Locator, name: string) =>
  rows.evaluateAll((all, n) => all.map((r) => r.getAttribute(n)), name);

/** A file the page hands the browser when `click` runs, as bytes. */
async function downloaded(page: Page, click: () => Promise<void>): Promise<{ name: string; bytes: Buffer }> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  return { name: download.suggestedFilename(), bytes: readFileSync((await download.path())!) };
}

/** Looks at the page: no serious accessibility violation, every action reachable by keyboard, a screenshot. */
async function inspect(page: Page, name: string): Promise<void> {
  assert.deepEqual(await seriousViolations(page), [], `${name}: axe-core`);
  assert.deepEqual(await unreachableByKeyboard(page), [], `${name}: keyboard`);
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

interface Seeded {
  readerKey: string;
  /** The ledger head's instant before staging was created, ISO to the microsecond. */
  beforeStaging: string;
  /** Snapshot #1 of prod's instant. */
  firstSnapshot: number;
}

/**
 * Evidence an auditor would look at: two environments, a flow whose template
 * asks for tests, two trails (one with tests and a file), what ran in prod in
 * two snapshots, and a reader key.
 */
async function seed(t: TestApp): Promise<Seeded> {
  const ok = async (call: Promise<request.Response>, status = 201) => {
    const res = await call;
    assert.equal(res.status, status, res.text);
    return res;
  };
  await ok(t.http.put('/api/v2/environments/acme').send({ name: 'prod', type: 'K8S' }));
  await ok(
    t.http.put('/api/v2/flows/acme').send({
      name: 'web',
      description: 'The shop',
      template: { trail: { attestations: [{ name: 'tests', type: 'junit' }] } },
    }),
  );
  for (const [trail, fingerprint, filename] of [
    ['main-1', WEB1, 'web:1'],
    ['main-2', WEB2, 'web:2'],
  ]) {
    await ok(
      t.http.put('/api/v2/trails/acme/web').send({
        name: trail,
        git_commit_info: {
          sha1: `${trail === 'main-1' ? 'aaa' : 'bbb'}1111`,
          message: 'basket',
          author: 'grace',
        },
      }),
    );
    await ok(t.http.post('/api/v2/artifacts/acme/web').send({ fingerprint, filename, trail_name: trail }));
  }
  await ok(
    t.http.post('/api/v2/attestations/acme/web/trail/main-1/junit').send({
      attestation_name: 'tests',
      junit_results: [{ name: 'all', tests: 3, failures: 0, errors: 0 }],
    }),
  );
  await ok(
    t.http
      .post('/api/v2/attestations/acme/web/trail/main-1/generic')
      .field('data_json', JSON.stringify({ attestation_name: 'notes', user_data: { ticket: 'SHOP-7' } }))
      .attach('attachment_file', Buffer.from(NOTES), 'notes.txt'),
  );
  // Every event so far under a checkpoint: the head's instant is the last one's.
  await checkpointCovering(t, 'acme');
  const head = (await ok(t.http.get('/api/v2/ledger/acme/head'), 200)).body as { recorded_at: number };
  // The head's own instant, to the microsecond: staging, recorded after it, is not there yet.
  const beforeStaging = isoMicros(head.recorded_at);
  await ok(t.http.put('/api/v2/environments/acme').send({ name: 'staging', type: 'K8S' }));
  await ok(
    t.http
      .put('/api/v2/environments/acme/prod/report/K8S')
      .send({ artifacts: [pod('web:1', WEB1), pod('cache:9', CACHE)] }),
  );
  await settle(t);
  await ok(
    t.http
      .put('/api/v2/environments/acme/prod/report/K8S')
      .send({ artifacts: [pod('web:2', WEB2), pod('cache:9', CACHE)] }),
  );
  await settle(t);
  const first = (await ok(t.http.get('/api/v2/environments/acme/prod/snapshots/1'), 200)).body as {
    timestamp: number;
  };
  await ok(
    t.http
      .post('/api/v2/service-accounts/acme')
      .send({ name: 'auditor', description: 'Audit', privilege: 'reader' }),
  );
  const key = await ok(
    t.http.post('/api/v2/service-accounts/acme/auditor/api-keys').send({ description: 'workspace' }),
  );
  return { readerKey: key.body.key as string, beforeStaging, firstSnapshot: first.timestamp };
}

async function launch(t: TestApp): Promise<{ base: string; browser: Browser }> {
  await t.app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  mkdirSync(SHOTS, { recursive: true });
  return { base, browser };
}

async function signIn(page: Page, base: string, key: string): Promise<void> {
  await page.goto(`${base}/ui/sign-in`);
  await page.getByLabel('Organization').fill('acme');
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/ui/acme`);
}

describe('the evidence workspace in a real browser (embedded mode)', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let seeded: Seeded;
  const api = (path: string, query: Record<string, string | number> = {}) =>
    request(t.server).get(path).query(query).set('Authorization', `Bearer ${seeded.readerKey}`).expect(200);

  before(async () => {
    t = await startApp({ mode: 'embedded' });
    seeded = await seed(t);
    ({ base, browser } = await launch(t));
    context = await browser.newContext({ acceptDownloads: true });
    page = await context.newPage();
  });
  after(async () => {
    await context?.close();
    await browser?.close();
    t.app.getHttpServer().closeAllConnections();
    await t.close();
  });

  it('is served at /ui/ with its security headers; / and the Kosli app page addresses redirect there', async () => {
    const root = await request(t.server).get('/');
    assert.deepEqual([root.status, root.headers.location], [302, '/ui/']);
    // The addresses the Kosli CLI prints and builds (its app's scheme) open the same pages here.
    for (const [kosli, here] of [
      [
        '/acme/flows/shop/artifacts/ab12?artifact_id=ab12',
        '/ui/acme/flows/shop/artifacts/ab12?artifact_id=ab12',
      ],
      ['/acme/flows/shop/trails/t1', '/ui/acme/flows/shop/trails/t1'],
      ['/acme/environments/prod/3', '/ui/acme/environments/prod'],
      ['/acme/environments/prod/', '/ui/acme/environments/prod'],
    ]) {
      const moved = await request(t.server).get(kosli);
      assert.deepEqual([moved.status, moved.headers.location], [302, here], kosli);
    }
    assert.equal((await request(t.server).get('/api/v2/flows/acme')).status, 401, 'the API is not a page');
    const shell = await request(t.server).get('/ui/sign-in').set('Accept-Encoding', 'gzip');
    assert.equal(shell.status, 200);
    assert.match(shell.text, /<div id="root"><\/div>/);
    assert.doesNotMatch(shell.text, /<script>(?!<)/, 'no inline script');
    assert.match(shell.headers['content-security-policy'], /script-src 'self'.*frame-ancestors 'none'/);
    assert.equal(shell.headers['cache-control'], 'no-cache');
    const asset = /src="(\/ui\/assets\/[^"]+\.js)"/.exec(shell.text)![1];
    const script = await request(t.server).get(asset).set('Accept-Encoding', 'gzip');
    assert.equal(script.headers['content-encoding'], 'gzip');
    assert.match(script.headers['cache-control'], /immutable/);
  });

  it('signs in with a reader key and shows the organization now and as of an earlier instant', async () => {
    await page.goto(`${base}/`);
    await page.waitForURL(`${base}/ui/sign-in`);
    await inspect(page, 'sign-in');
    await page.getByLabel('Organization').fill('acme');
    await page.getByLabel('API key').fill('des_not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: '401' }).waitFor();

    await page.getByLabel('API key').fill(seeded.readerKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('tr[data-environment="staging"]').waitFor();
    assert.deepEqual(await attributes(page.locator('tr[data-environment]'), 'data-environment'), [
      'prod',
      'staging',
    ]);
    assert.equal(
      await page.locator('tr[data-environment="staging"] td').nth(2).innerText(),
      'no report yet',
      'an environment never reported is not called compliant',
    );
    assert.equal(await page.locator('li[data-flow="web"]').count(), 1);
    await page.locator('tr[data-change]').first().waitFor();
    const latest = (await api('/api/v2/audit/acme/changes')).body as { changes: { id: string }[] };
    assert.deepEqual(
      await attributes(page.locator('tr[data-change]'), 'data-change'),
      latest.changes.map((c) => c.id).reverse(),
      'the latest changes, newest first',
    );
    await inspect(page, 'organization');
    assert.doesNotMatch(page.url(), /des_/, 'the key is never in a URL');
    assert.doesNotMatch(await page.content(), new RegExp(seeded.readerKey), 'nor in the page');

    // The same page as of an instant before staging existed: exactly what the API answers with that `at`.
    await page.goto(`${base}/ui/acme?at=${encodeURIComponent(seeded.beforeStaging)}`);
    await page.locator('tr[data-environment="prod"]').waitFor();
    const then = await attributes(page.locator('tr[data-environment]'), 'data-environment');
    const past = (await api('/api/v2/environments/acme', { at: seeded.beforeStaging })).body as {
      name: string;
    }[];
    assert.deepEqual(
      then,
      past.map((e) => e.name),
    );
    assert.deepEqual(then, ['prod']);
    await page.screenshot({ path: join(SHOTS, 'organization-as-of.png'), fullPage: true });
  });

  it('shows an environment now and at an earlier snapshot as the API answers, the diff between them, and its files', async () => {
    await page.goto(`${base}/ui/acme`);
    await page.getByRole('link', { name: 'prod', exact: true }).first().click();
    await page.waitForURL(`${base}/ui/acme/environments/prod`);
    await page.locator('tr[data-fingerprint]').first().waitFor();
    const now = (await api('/api/v2/environments/acme/prod/snapshots/-1')).body as {
      artifacts: { fingerprint: string }[];
    };
    assert.deepEqual(
      await attributes(page.locator('tr[data-fingerprint]'), 'data-fingerprint'),
      now.artifacts.map((a) => a.fingerprint),
    );
    await inspect(page, 'environment');

    // Along the timeline to snapshot #1: the page moves to its instant.
    await page
      .locator('li[data-snapshot="1"]')
      .first()
      .getByRole('link', { name: 'View at this instant' })
      .click();
    await page.waitForURL(/environments\/prod\?at=/);
    const at = new URL(page.url()).searchParams.get('at')!;
    assert.equal(Math.round(Date.parse(at) / 1000), Math.round(seeded.firstSnapshot));
    await page.locator(`tr[data-fingerprint="${WEB1}"]`).waitFor();
    const then = (await api('/api/v2/environments/acme/prod/snapshots/-1', { at })).body as {
      index: number;
      artifacts: { fingerprint: string }[];
    };
    assert.equal(then.index, 1);
    assert.deepEqual(
      await attributes(page.locator('tr[data-fingerprint]'), 'data-fingerprint'),
      then.artifacts.map((a) => a.fingerprint),
    );
    await page.screenshot({ path: join(SHOTS, 'environment-as-of.png'), fullPage: true });

    // Back to now, then the diff from snapshot #1.
    await page.getByRole('button', { name: 'Now' }).click();
    await page.waitForURL(`${base}/ui/acme/environments/prod`);
    await page.locator(`tr[data-fingerprint="${WEB2}"]`).waitFor();
    // Every heading the diff shows is recorded: none may be drawn from the
    // answer for the previous instant while the new one loads.
    await page.evaluate(`{
      const seen = (window.diffHeadings = []);
      new MutationObserver(() => {
        const heading = document.querySelector('div.diff > p')?.textContent;
        if (heading && seen.at(-1) !== heading) seen.push(heading);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    }`);
    await page
      .locator('li[data-snapshot="1"]')
      .first()
      .getByRole('link', { name: /Diff from here \(snapshot #1\)/ })
      .click();
    // Both sides are read before the diff shows: started web:2, exited web:1.
    // Read once both rows are there (a render between a wait and a read once gave an empty list).
    const diff = await eventually(
      () =>
        page
          .locator('li[data-diff]')
          .evaluateAll((rows) =>
            rows.map((r) => `${r.getAttribute('data-diff')} ${r.getAttribute('data-fingerprint')}`),
          ),
      (rows) => rows.length >= 2,
    );
    const before = new Set(then.artifacts.map((a) => a.fingerprint));
    const after = new Set(now.artifacts.map((a) => a.fingerprint));
    assert.deepEqual(diff, [
      ...[...after].filter((f) => !before.has(f)).map((f) => `started ${f}`),
      ...[...before].filter((f) => !after.has(f)).map((f) => `exited ${f}`),
    ]);
    assert.deepEqual(diff, [`started ${WEB2}`, `exited ${WEB1}`]);
    const headings = await page.evaluate<string[]>('window.diffHeadings');
    assert.ok(
      headings.length > 0 && headings.every((h) => h.startsWith('From snapshot #1 ')),
      headings.join(' | '),
    );
    await inspect(page, 'environment-diff');

    const csv = await downloaded(page, () => page.getByRole('button', { name: 'Audit log (CSV)' }).click());
    assert.match(csv.bytes.toString(), /^timestamp|^[a-z_]+,/, csv.bytes.toString().slice(0, 80));
    assert.match(csv.bytes.toString(), new RegExp(WEB2));
  });

  it('opens a flow, a trail with its evidence and files, an artifact; downloads the trail’s PDF', async () => {
    await page.goto(`${base}/ui/acme`);
    await page.getByRole('link', { name: 'web', exact: true }).click();
    await page.locator('tr[data-trail]').first().waitFor();
    const trails = (await api('/api/v2/trails/acme/web')).body as { name: string }[];
    assert.deepEqual(
      await attributes(page.locator('tr[data-trail]'), 'data-trail'),
      trails.map((t) => t.name),
    );
    await inspect(page, 'flow');

    await page.getByRole('link', { name: 'main-1', exact: true }).click();
    await page.locator('[data-compliance]').waitFor();
    const trail = (await api('/api/v2/trails/acme/web/main-1')).body as {
      compliance_state: string;
      attestations: Record<string, unknown>;
    };
    assert.equal(
      await page.locator('[data-compliance]').getAttribute('data-compliance'),
      trail.compliance_state,
    );
    assert.deepEqual(
      (await attributes(page.locator('tr[data-attestation]'), 'data-attestation')).sort(),
      Object.keys(trail.attestations).sort(),
    );
    await page.locator('ol.timeline li').first().waitFor();
    await inspect(page, 'trail');

    const file = await downloaded(page, () => page.getByRole('button', { name: /^notes\.txt/ }).click());
    assert.deepEqual([file.name, file.bytes.toString()], ['notes.txt', NOTES]);
    const pdf = await downloaded(page, () =>
      page.getByRole('button', { name: 'Audit report (PDF)' }).click(),
    );
    assert.equal(pdf.bytes.subarray(0, 5).toString(), '%PDF-', 'the bytes are a PDF');
    assert.match(pdf.name, /\.pdf$/);

    await page.getByRole('link', { name: 'web:1' }).click();
    await page.getByRole('heading', { name: /Artifact web:1/ }).waitFor();
    assert.match(await page.locator('.facts').innerText(), new RegExp(WEB1));
    await inspect(page, 'artifact');
  });

  it('shows the change population with its hash, filters it by gap, and draws the same sample twice', async () => {
    await page.goto(`${base}/ui/acme`);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Changes' }).click();
    await page.locator('[data-population-sha256]').waitFor();
    const shown = await page.locator('[data-population-sha256]').innerText();
    const population = (await api('/api/v2/audit/acme/changes')).body as {
      population_sha256: string;
      population_total: number;
    };
    assert.equal(shown, population.population_sha256);
    assert.equal(
      await page.locator('[data-population-total]').innerText(),
      String(population.population_total),
    );
    await inspect(page, 'changes');

    await page.getByLabel('No provenance').check();
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/gaps=no_provenance/);
    await page.locator(`tr[data-change$=":${CACHE}"]`).first().waitFor();
    const unproven = (await api('/api/v2/audit/acme/changes', { gaps: 'no_provenance' })).body as {
      changes: { id: string }[];
    };
    await page.waitForFunction(
      (n) =>
        (
          globalThis as unknown as { document: { querySelectorAll(selector: string): { length: number } } }
        ).document.querySelectorAll('section[aria-labelledby="population-title"] tr[data-change]').length ===
        n,
      unproven.changes.length,
    );
    assert.deepEqual(
      await attributes(
        page.locator('section[aria-labelledby="population-title"] tr[data-change]'),
        'data-change',
      ),
      unproven.changes.map((c) => c.id),
    );

    const draw = async () => {
      await page.getByLabel('Seed').fill('SOC2-2026-Q4');
      await page.getByLabel('Size').fill('2');
      await page.getByRole('button', { name: 'Draw' }).click();
      await page.locator('[data-sample] tr[data-change]').first().waitFor();
      return attributes(page.locator('[data-sample] tr[data-change]'), 'data-change');
    };
    const first = await draw();
    const pinned = new URL(page.url()).searchParams.get('at')!;
    assert.ok(pinned, 'a drawn sample pins the page to its instant');
    await inspect(page, 'changes-sample');
    await page.goto(`${base}/ui/acme/changes?at=${encodeURIComponent(pinned)}`);
    await page.locator('[data-population-sha256]').waitFor();
    const second = await draw();
    assert.deepEqual(second, first, 'the same seed draws the same sample');
    const sample = (
      await api('/api/v2/audit/acme/changes/sample', { at: pinned, seed: 'SOC2-2026-Q4', size: 2 })
    ).body as { changes: { id: string }[] };
    assert.deepEqual(
      first,
      sample.changes.map((c) => c.id),
    );
  });

  it('shows the ledger’s checkpoint and checks a printed report’s against it', async () => {
    await page.goto(`${base}/ui/acme`);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Ledger' }).click();
    await page.locator('[data-ledger-root]').waitFor();
    const head = (await api('/api/v2/ledger/acme/head')).body as { tree_size: number; root_hash: string };
    assert.equal(await page.locator('[data-ledger-size]').innerText(), String(head.tree_size));
    assert.equal(await page.locator('[data-ledger-root]').innerText(), head.root_hash);
    await inspect(page, 'ledger');

    await page.getByLabel('The tree size it prints').fill(String(head.tree_size));
    await page.getByLabel('The root it prints').fill(head.root_hash);
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByRole('status').filter({ hasText: 'The roots match' }).waitFor();
    await page.getByLabel('The root it prints').fill(`${'A'.repeat(43)}=`);
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByRole('status').filter({ hasText: 'The roots differ' }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'ledger-check.png'), fullPage: true });
  });

  it('asks for a key when a shared link is opened, returns to it, and signs out by keyboard', async () => {
    const link = (await api('/api/v2/environments/acme/prod')).body as { html_url: string };
    const path = new URL(link.html_url).pathname;
    await page.evaluate('sessionStorage.clear()');
    await page.goto(`${base}${path}`);
    await page.waitForURL(/\/ui\/sign-in\?org=acme&next=/);
    assert.equal(await page.getByLabel('Organization').inputValue(), 'acme');
    await page.getByLabel('API key').fill(seeded.readerKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}${path}`);
    await page.locator('tr[data-fingerprint]').first().waitFor();

    await page.getByRole('button', { name: 'Sign out' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${base}/ui/sign-in`);
    assert.equal(await page.evaluate('sessionStorage.length'), 0, 'signing out forgets the key');
  });
});

describe('the evidence workspace in a real browser (server mode)', () => {
  const mode: Mode = 'server';
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let seeded: Seeded;

  before(async () => {
    t = await startApp({ mode, env: await modeEnv(mode) });
    seeded = await seed(t);
    ({ base, browser } = await launch(t));
  });
  after(async () => {
    await browser?.close();
    t.app.getHttpServer().closeAllConnections();
    await t.close();
  });

  it('shows an environment at an earlier snapshot exactly as the API answers', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, base, seeded.readerKey);
    const at = isoMicros(seeded.firstSnapshot);
    await page.goto(`${base}/ui/acme/environments/prod?at=${encodeURIComponent(at)}`);
    await page.locator(`tr[data-fingerprint="${WEB1}"]`).waitFor();
    const then = (
      await request(t.server)
        .get('/api/v2/environments/acme/prod/snapshots/-1')
        .query({ at })
        .set('Authorization', `Bearer ${seeded.readerKey}`)
        .expect(200)
    ).body as { artifacts: { fingerprint: string }[] };
    assert.deepEqual(
      await attributes(page.locator('tr[data-fingerprint]'), 'data-fingerprint'),
      then.artifacts.map((a) => a.fingerprint),
    );
    assert.deepEqual(await seriousViolations(page), []);
    await page.screenshot({ path: join(SHOTS, 'server-environment-as-of.png'), fullPage: true });
    await context.close();
  });
});
