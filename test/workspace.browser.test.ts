import AxeBuilder from '@axe-core/playwright';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import request from 'supertest';
import { isoMicros } from '#des/kernel';
import { startApp, type TestApp } from './support/app';

/** Debian's Chromium (npm run setup installs it), or the one PUPPETEER_EXECUTABLE_PATH names. */
const CHROMIUM = process.env.PUPPETEER_EXECUTABLE_PATH ?? '/usr/bin/chromium';
/** Screenshots of each page, for a person to look at (git-ignored; CI keeps them as artifacts). */
const SHOTS = resolve(__dirname, '../../test-results/workspace');

/** Serious and critical axe-core violations on the page as it is now. */
async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.length})`);
}

describe('the evidence workspace in a real browser (embedded mode)', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let beforeStaging: string;

  before(async () => {
    t = await startApp({ mode: 'embedded' });
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
    await t.http.put('/api/v2/environments/acme').send({ name: 'prod', type: 'K8S' }).expect(201);
    await t.http.put('/api/v2/flows/acme').send({ name: 'web', description: 'The shop' }).expect(201);
    const head = (await t.http.get('/api/v2/ledger/acme/head').expect(200)).body as { recorded_at: number };
    // The head's own instant, to the microsecond: staging, recorded after it, is not there yet.
    beforeStaging = isoMicros(head.recorded_at);
    await t.http.put('/api/v2/environments/acme').send({ name: 'staging', type: 'K8S' }).expect(201);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    t.app.getHttpServer().closeAllConnections();
    await t.close();
  });

  it('is served at /ui/ with its security headers; / redirects there', async () => {
    const root = await request(t.server).get('/');
    assert.deepEqual([root.status, root.headers.location], [302, '/ui/']);
    const page = await request(t.server).get('/ui/sign-in').set('Accept-Encoding', 'gzip');
    assert.equal(page.status, 200);
    assert.match(page.text, /<div id="root"><\/div>/);
    assert.doesNotMatch(page.text, /<script>(?!<)/, 'no inline script');
    assert.match(page.headers['content-security-policy'], /script-src 'self'.*frame-ancestors 'none'/);
    assert.equal(page.headers['cache-control'], 'no-cache');
    const asset = /src="(\/ui\/assets\/[^"]+\.js)"/.exec(page.text)![1];
    const script = await request(t.server).get(asset).set('Accept-Encoding', 'gzip');
    assert.equal(script.headers['content-encoding'], 'gzip');
    assert.match(script.headers['cache-control'], /immutable/);
  });

  it('signs in with a key, shows the organization now and as of an earlier instant, and signs out', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/`);
    await page.waitForURL(`${base}/ui/sign-in`);
    assert.deepEqual(await seriousViolations(page), []);
    await page.screenshot({ path: join(SHOTS, 'sign-in.png'), fullPage: true });

    await page.getByLabel('Organization').fill('acme');
    await page.getByLabel('API key').fill('des_not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: '401' }).waitFor();

    await page.getByLabel('API key').fill(t.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('tr[data-environment="staging"]').waitFor();
    const now = await page
      .locator('tr[data-environment]')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-environment')));
    assert.deepEqual(now, ['prod', 'staging']);
    assert.equal(await page.locator('li[data-flow="web"]').count(), 1);
    assert.deepEqual(await seriousViolations(page), []);
    await page.screenshot({ path: join(SHOTS, 'organization.png'), fullPage: true });
    assert.doesNotMatch(page.url(), /des_/, 'the key is never in a URL');
    assert.doesNotMatch(await page.content(), new RegExp(t.key), 'nor in the page');

    // The same page as of an instant before staging existed: exactly what the API answers with that `at`.
    await page.goto(`${base}/ui/?at=${encodeURIComponent(beforeStaging)}`);
    await page.locator('tr[data-environment="prod"]').waitFor();
    const then = await page
      .locator('tr[data-environment]')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-environment')));
    const api = (await t.http.get('/api/v2/environments/acme').query({ at: beforeStaging }).expect(200))
      .body as { name: string }[];
    assert.deepEqual(
      then,
      api.map((e) => e.name),
    );
    assert.deepEqual(then, ['prod']);
    await page.screenshot({ path: join(SHOTS, 'organization-as-of.png'), fullPage: true });

    await page.keyboard.press('Tab');
    await page.getByRole('button', { name: 'Sign out' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${base}/ui/sign-in`);
    assert.equal(await page.evaluate('sessionStorage.length'), 0, 'signing out forgets the key');
    await context.close();
  });
});
