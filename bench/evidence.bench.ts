import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchConfig } from './support/service';
import { runBenchmark, sized } from './support/run';
import { createHttpApp } from '#des/service';
import { OrganizationBootstrap } from '#des/accounts';
import { client, percentile } from './support/http-client';

/** Evidence benchmarks (issue: evidence): attestation writes, and the trail audit PDF with a warm browser. */
const results: Record<string, unknown> = {};
const rssMb = () => Math.round(process.memoryUsage().rss / 1024 / 1024);

runBenchmark('evidence', results, async () => {
  const app = await createHttpApp({
    config: benchConfig(mkdtempSync(join(tmpdir(), 'des-bench-ev-'))),
    role: 'all',
  });
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as { port: number }).port;
  const key = (await app.get(OrganizationBootstrap).createOrganization('bench', [], 10)).key;
  const http = client(port, { authorization: `Bearer ${key}` });
  await http.call('PUT', '/api/v2/flows/bench', { name: 'svc' });
  const trails = Array.from({ length: 8 }, (_, i) => `t${i}`);
  for (const trail of trails) {
    await http.call('PUT', '/api/v2/trails/bench/svc', {
      name: trail,
      git_commit_info: { sha1: `c0ffee${trail}` },
    });
  }

  // Warm-up first, on a trail of its own: the figures are of the service once its code is optimized
  // (V8 tiers up the write path over its first few thousand requests), not of its first seconds.
  await http.call('PUT', '/api/v2/trails/bench/svc', {
    name: 'warm-up',
    git_commit_info: { sha1: 'c0ffee' },
  });
  for (let i = 0; i < sized(3000, 20); i++) {
    const res = await http.call('POST', '/api/v2/attestations/bench/svc/trail/warm-up/junit', {
      attestation_name: `suite-${i % 20}`,
      junit_results: [{ name: 'all', tests: 100, failures: 0, errors: 0 }],
    });
    if (res.status !== 201) throw new Error(`warm-up: ${res.status} ${res.body}`);
  }

  // Sequential, then 8 writers on 8 trails.
  const samples: number[] = [];
  let t = performance.now();
  const writes = sized(1000, 50);
  for (let i = 0; i < writes; i++) {
    const s = performance.now();
    const res = await http.call('POST', '/api/v2/attestations/bench/svc/trail/t0/junit', {
      attestation_name: `suite-${i % 20}`,
      junit_results: [{ name: 'all', tests: 100, failures: 0, errors: 0 }],
    });
    if (res.status !== 201) throw new Error(`attest: ${res.status} ${res.body}`);
    samples.push(performance.now() - s);
  }
  const sequential = Math.round(writes / ((performance.now() - t) / 1000));
  samples.sort((a, b) => a - b);
  t = performance.now();
  const perTrail = sized(250, 25);
  await Promise.all(
    trails.map(async (trail) => {
      for (let i = 0; i < perTrail; i++) {
        const res = await http.call('POST', `/api/v2/attestations/bench/svc/trail/${trail}/generic`, {
          attestation_name: `check-${i % 10}`,
        });
        if (res.status !== 201) throw new Error(`attest: ${res.status} ${res.body}`);
      }
    }),
  );
  const concurrent = Math.round((trails.length * perTrail) / ((performance.now() - t) / 1000));
  results.attestation_writes = {
    sequential_per_s: sequential,
    p50_ms: percentile(samples, 50),
    p99_ms: percentile(samples, 99),
    eight_writers_per_s: concurrent,
    goal_per_s: 1000,
  };
  console.log(
    `Attestation writes: ${sequential}/s sequential (p50 ${percentile(samples, 50)} ms, p99 ${percentile(samples, 99)} ms); ${concurrent}/s with 8 writers on 8 trails (goal >= 1000/s)`,
  );

  // The PDF of a trail with 1,000+ attestations in its timeline, warm browser.
  const pdfPath = '/api/v2/trails/bench/svc/t0/audit_pdf';
  const first = performance.now();
  await http.drain(pdfPath);
  const coldMs = Math.round(performance.now() - first);
  const before = rssMb();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb())), 10);
  const pdfSamples: number[] = [];
  for (let i = 0; i < sized(30, 5); i++) {
    const s = performance.now();
    const res = await http.drain(pdfPath);
    if (res.status !== 200) throw new Error(`pdf: ${res.status}`);
    pdfSamples.push(performance.now() - s);
  }
  clearInterval(sampler);
  pdfSamples.sort((a, b) => a - b);
  // A small trail too: the usual case.
  const small: number[] = [];
  for (let i = 0; i < sized(30, 5); i++) {
    const s = performance.now();
    await http.drain('/api/v2/trails/bench/svc/t7/audit_pdf');
    small.push(performance.now() - s);
  }
  small.sort((a, b) => a - b);
  results.audit_pdf = {
    cold_first_ms: coldMs,
    large_trail: {
      timeline_events: 1001,
      p50_ms: percentile(pdfSamples, 50),
      p99_ms: percentile(pdfSamples, 99),
      goal_p50_ms: 300,
    },
    small_trail: {
      timeline_events: 251,
      p50_ms: percentile(small, 50),
      p99_ms: percentile(small, 99),
      goal_p50_ms: 150,
    },
    node_rss_before_mb: before,
    node_rss_peak_mb: peak,
  };
  console.log(
    `Trail audit PDF, warm browser: p50 ${percentile(small, 50)} ms (251 timeline events; goal <= 150 ms), ` +
      `p50 ${percentile(pdfSamples, 50)} ms (1,001 events; goal <= 300 ms); first (cold) ${coldMs} ms. ` +
      `Service RSS ${before} → peak ${peak} MB (Chromium runs in its own processes)`,
  );
  http.close();
  await app.close();
});
