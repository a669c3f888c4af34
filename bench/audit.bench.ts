import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, percentile } from './support/http-client';
import { fingerprintOf, podsOf } from './support/pods';
import { runBenchmark, sized, smoke } from './support/run';
import { seedNoise } from './support/seed';
import { ok, startBenchService } from './support/service';

/**
 * Auditors' answers (issue: auditors), embedded mode over loopback, with
 * 1M events of another organization in the log: the change population of
 * 10,000 changes over 5 environments (first JSON page, the whole CSV), a
 * sample of 25 from it, and the environment report with 500 running
 * artifacts. Figures go to bench/results/audit.json.
 */
const results: Record<string, unknown> = {};
const ENVIRONMENTS = 5;
const PER_REPORT = 10;

async function timed(runs: number, call: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await call();
    samples.push(performance.now() - t);
  }
  return percentile(samples, 50);
}

function report(label: string, p50: number, goal: number) {
  console.log(`${label}: p50 ${p50.toFixed(0)} ms (goal <= ${goal} ms) ${p50 <= goal ? '✓' : '✗'}`);
  return { p50_ms: Math.round(p50), goal_p50_ms: goal };
}

runBenchmark('audit', results, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'des-bench-audit-'));
  const noise = sized(1_000_000, 20_000);
  const changes = sized(10_000, 200);
  const runningInReport = sized(500, 50);
  let t = performance.now();
  await seedNoise(join(dataDir, 'events.db'), noise);
  console.log(
    `seeded ${noise} events of another organization in ${Math.round((performance.now() - t) / 1000)} s`,
  );
  const { app, port, key, http } = await startBenchService(dataDir);
  const csvClient = client(port, { authorization: `Bearer ${key}`, accept: 'text/csv' });

  // Trails report one fingerprint in five, with a few attestations each (the rest run without provenance).
  t = performance.now();
  await ok(http, 'PUT', '/api/v2/flows/bench', { name: 'svc' });
  const traced = Math.ceil(changes / 5);
  for (let f = 0; f < traced; f++) {
    const trail = `build-${f}`;
    await ok(http, 'PUT', '/api/v2/trails/bench/svc', {
      name: trail,
      git_commit_info: {
        sha1: fingerprintOf(f).slice(0, 40),
        author: `dev${f % 7}`,
        message: 'change',
        branch: 'main',
      },
    });
    await ok(http, 'POST', '/api/v2/artifacts/bench/svc', {
      fingerprint: fingerprintOf(f * 5),
      filename: `svc-${f * 5}`,
      trail_name: trail,
    });
    await ok(http, 'POST', `/api/v2/attestations/bench/svc/trail/${trail}/junit`, {
      attestation_name: 'tests',
      junit_results: [{ name: 'all', tests: 10, failures: 0, errors: 0 }],
    });
    await ok(http, 'POST', `/api/v2/attestations/bench/svc/trail/${trail}/pull_request`, {
      attestation_name: 'review',
      pull_requests: [
        { url: `https://git.local/pr/${f}`, author: `dev${f % 7}`, approvers: [`dev${(f + 1) % 7}`] },
      ],
    });
  }
  // Each report swaps its environment's ten running artifacts: ten changes per report.
  for (let e = 0; e < ENVIRONMENTS; e++)
    await ok(http, 'PUT', '/api/v2/environments/bench', { name: `env-${e}`, type: 'K8S' });
  const reportsPerEnv = Math.ceil(changes / ENVIRONMENTS / PER_REPORT);
  for (let r = 0; r < reportsPerEnv; r++) {
    for (let e = 0; e < ENVIRONMENTS; e++) {
      const first = (r * PER_REPORT + e * 7) % changes;
      const running = Array.from({ length: PER_REPORT }, (_, i) => (first + i) % changes);
      await ok(http, 'PUT', `/api/v2/environments/bench/env-${e}/report/K8S`, { artifacts: podsOf(running) });
    }
  }
  console.log(
    `recorded ${traced} trails and ${reportsPerEnv * ENVIRONMENTS} reports in ${Math.round((performance.now() - t) / 1000)} s`,
  );
  // Everything is projected before the clock starts.
  let at = 0;
  for (let i = 0; i < 200; i++) {
    // The population pinned now (the latest event's instant), until it holds every change.
    const page = JSON.parse((await ok(http, 'GET', '/api/v2/audit/bench/changes?per_page=1')).body) as {
      at: number;
      total_count: number;
    };
    at = page.at;
    if (page.total_count >= changes) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const pinned = `at=${at}&from=0`;
  const firstPage = JSON.parse((await ok(http, 'GET', `/api/v2/audit/bench/changes?${pinned}`)).body) as {
    total_count: number;
  };
  const runs = smoke ? 3 : 10;
  results.population = {
    events_in_log: noise,
    changes: firstPage.total_count,
    environments: ENVIRONMENTS,
    first_page_json: report(
      `population of ${firstPage.total_count} changes, first JSON page (100)`,
      await timed(runs, () => ok(http, 'GET', `/api/v2/audit/bench/changes?${pinned}`)),
      500,
    ),
    whole_csv: report(
      `population of ${firstPage.total_count} changes, the whole CSV`,
      await timed(Math.min(runs, 5), async () => {
        const res = await csvClient.drain(`/api/v2/audit/bench/changes?${pinned}`);
        if (res.lines - 1 < firstPage.total_count) throw new Error(`CSV of ${res.lines - 1} rows`);
      }),
      2_000,
    ),
    sample_25: report(
      `sample of 25 from ${firstPage.total_count} changes`,
      await timed(runs, () =>
        ok(http, 'GET', `/api/v2/audit/bench/changes/sample?size=25&seed=bench&${pinned}`),
      ),
      500,
    ),
  };

  await ok(http, 'PUT', '/api/v2/environments/bench', { name: 'wide', type: 'K8S' });
  await ok(http, 'PUT', '/api/v2/environments/bench/wide/report/K8S', {
    artifacts: podsOf(Array.from({ length: runningInReport }, (_, i) => i)),
  });
  await ok(http, 'GET', '/api/v2/environments/bench/wide/audit_pdf'); // the browser's first start is not measured
  results.environment_pdf = {
    running_artifacts: runningInReport,
    ...report(
      `environment report with ${runningInReport} running artifacts`,
      await timed(Math.min(runs, 5), () => ok(http, 'GET', '/api/v2/environments/bench/wide/audit_pdf')),
      1_000,
    ),
  };
  http.close();
  csvClient.close();
  await app.close();
});
