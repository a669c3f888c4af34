import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import { WORKSPACE_DIR } from '#des/service';
import { percentile } from './support/http-client';
import { fingerprintOf, podsOf } from './support/pods';
import { runBenchmark, sized } from './support/run';
import { ok, startBenchService } from './support/service';

/**
 * The evidence workspace (issue 31), embedded mode over loopback, in Debian's
 * Chromium: the JavaScript it ships (gzipped), the first page usable from a
 * cold start of the browser, and an environment page with 500 running
 * artifacts rendered after its data arrived. Figures go to
 * bench/results/workspace.json.
 */
const CHROMIUM = process.env.PUPPETEER_EXECUTABLE_PATH ?? '/usr/bin/chromium';
const results: Record<string, unknown> = {};

function figure(label: string, value: number, goal: number, unit: string) {
  console.log(`${label}: ${value.toFixed(0)} ${unit} (goal <= ${goal} ${unit}) ${value <= goal ? '✓' : '✗'}`);
  return { value: Math.round(value), goal, unit };
}

/**
 * In the page, before any script of its own: the instant the environment's
 * running rows first number `rows` (MutationObserver), and the session the
 * workspace reads (as sign-in leaves it; the key never goes in a URL).
 */
const initScript = (org: string, key: string, rows: number) => `
  sessionStorage.setItem('des.session', ${JSON.stringify(JSON.stringify({ org, key }))});
  new MutationObserver((_, observer) => {
    if (document.querySelectorAll('tr[data-fingerprint]').length >= ${rows}) {
      window.__rowsAt = performance.now();
      observer.disconnect();
    }
  }).observe(document, { childList: true, subtree: true });
`;

runBenchmark('workspace', results, async () => {
  // The JavaScript shipped: every script of the built workspace, gzipped as the service sends it.
  const assets = join(WORKSPACE_DIR, 'assets');
  const scripts = readdirSync(assets).filter((f) => f.endsWith('.js'));
  const gzipped = scripts.reduce((sum, f) => sum + gzipSync(readFileSync(join(assets, f))).length, 0);
  results.javascript_gzipped = figure('JavaScript shipped, gzipped', gzipped / 1024, 300, 'KB');

  const running = sized(500, 500);
  const runs = sized(7, 3);
  const dataDir = mkdtempSync(join(tmpdir(), 'des-bench-workspace-'));
  const { app, port, key, http } = await startBenchService(dataDir);
  const base = `http://127.0.0.1:${port}`;

  // 500 artifacts from 50 trails, all running in prod: each row has provenance and a commit.
  await ok(http, 'PUT', '/api/v2/environments/bench', { name: 'prod', type: 'K8S' });
  await ok(http, 'PUT', '/api/v2/flows/bench', { name: 'svc' });
  for (let trail = 0; trail < running / 10; trail++) {
    await ok(http, 'PUT', '/api/v2/trails/bench/svc', {
      name: `build-${trail}`,
      git_commit_info: { sha1: fingerprintOf(trail).slice(0, 40), author: 'dev', message: 'change' },
    });
    for (let i = 0; i < 10; i++) {
      const f = trail * 10 + i;
      await ok(http, 'POST', '/api/v2/artifacts/bench/svc', {
        fingerprint: fingerprintOf(f),
        filename: `svc-${f}`,
        trail_name: `build-${trail}`,
      });
    }
  }
  await ok(http, 'PUT', '/api/v2/environments/bench/prod/report/K8S', {
    artifacts: podsOf(Array.from({ length: running }, (_, f) => f)),
  });
  for (;;) {
    const snapshot = JSON.parse(
      (await ok(http, 'GET', '/api/v2/environments/bench/prod/snapshots/-1')).body,
    ) as {
      artifacts: { provenance: unknown }[];
    };
    if (snapshot.artifacts.length === running && snapshot.artifacts.every((a) => a.provenance)) break;
    await new Promise((r) => setTimeout(r, 50));
  }

  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    const firstPage: number[] = [];
    const rendered: number[] = [];
    for (let run = 0; run < runs; run++) {
      // A fresh context each time: nothing cached, as a first visit.
      const context = await browser.newContext();
      await context.addInitScript(initScript('bench', key, running));
      const page = await context.newPage();
      const start = performance.now();
      await page.goto(`${base}/ui/bench`);
      await page.locator('tr[data-environment="prod"]').waitFor();
      firstPage.push(performance.now() - start);

      await page.goto(`${base}/ui/bench/environments/prod`);
      await page.waitForFunction(
        () => (globalThis as { __rowsAt?: number }).__rowsAt !== undefined,
        undefined,
        {
          timeout: 60_000,
        },
      );
      // From the end of the last response the page's rows wait for (the environment and its snapshot) to the rows in the DOM.
      rendered.push(
        await page.evaluate<number>(`(() => {
          const data = performance.getEntriesByType('resource')
            .filter((e) => /\\/api\\/v2\\/environments\\/bench\\/prod(\\/snapshots\\/-1)?(\\?|$)/.test(e.name));
          return window.__rowsAt - Math.max(...data.map((e) => e.responseEnd));
        })()`),
      );
      await context.close();
    }
    results.first_page = figure(
      'first page usable (cold browser context)',
      percentile(firstPage, 50),
      1500,
      'ms',
    );
    results.environment_500_rendered = figure(
      `environment page, ${running} running artifacts rendered after their data arrived`,
      percentile(rendered, 50),
      300,
      'ms',
    );
    results.runs = runs;
  } finally {
    await browser?.close();
    await app.close();
  }
});
