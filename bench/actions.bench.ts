import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OrganizationBootstrap } from '#des/accounts';
import { loadConfig } from '#des/platform';
import { createHttpApp } from '#des/service';
import { client, percentile } from './support/http-client';
import { fingerprintOf, podsOf } from './support/pods';
import { runBenchmark, smoke } from './support/run';

/**
 * Actions (issue: actions), embedded mode over loopback: the latency from a
 * K8S report to the notification at the receiver, and deliveries per second
 * to 1 and to 8 targets. Prints each figure beside its goal and writes them
 * to bench/results/actions.json.
 */
const results: Record<string, unknown> = {};
const GOAL_LATENCY_P50_MS = 50;

/** A receiver that resolves a waiter when the delivery for a fingerprint (or the n-th delivery) arrives. */
function receiver(): { server: Server; received: () => number; arrival: (fp: string) => Promise<number> } {
  let count = 0;
  const waiting = new Map<string, (at: number) => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      count++;
      const fingerprint = JSON.parse(Buffer.concat(chunks).toString()).artifact?.fingerprint as string;
      waiting.get(fingerprint)?.(at);
      waiting.delete(fingerprint);
      res.writeHead(204).end();
    });
  });
  return {
    server,
    received: () => count,
    arrival: (fp) => new Promise((resolve) => waiting.set(fp, resolve)),
  };
}

async function until(condition: () => boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the deliveries did not all arrive in time');
    await new Promise((r) => setTimeout(r, 2));
  }
}

runBenchmark('actions', results, async () => {
  const sink = receiver();
  await new Promise<void>((r) => sink.server.listen(0, '127.0.0.1', r));
  const target = `http://127.0.0.1:${(sink.server.address() as AddressInfo).port}`;
  const app = await createHttpApp({
    config: loadConfig({
      DES_DATA_DIR: mkdtempSync(join(tmpdir(), 'des-bench-actions-')),
      DES_ACTIONS_ALLOW_PRIVATE_TARGETS: 'true',
      LOG_LEVEL: 'silent',
    }),
    role: 'all',
  });
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as AddressInfo).port;
  const org = 'bench';
  const key = (await app.get(OrganizationBootstrap).createOrganization(org, [], 10)).key;
  const http = client(port, { authorization: `Bearer ${key}` });
  const action = async (env: string, targets: number) => {
    await http.call('PUT', `/api/v2/environments/${org}`, { name: env, type: 'K8S' });
    const res = await http.call('PUT', `/api/v2/actions/${org}/environments`, {
      name: `on-${env}`,
      environments: [env],
      triggers: ['ON_STARTED_ARTIFACT'],
      targets: Array.from({ length: targets }, (_, i) => ({ type: 'WEBHOOK', webhook: `${target}/t${i}` })),
    });
    if (res.status !== 201) throw new Error(`action: ${res.status} ${res.body}`);
  };

  // Latency: one new artifact per report, timed from the request to the receiver.
  await action('latency', 1);
  const rounds = smoke ? 5 : 100;
  const latencies: number[] = [];
  let next = 1;
  for (let i = 0; i < rounds; i++) {
    const fp = next++;
    const arrived = sink.arrival(fingerprintOf(fp));
    const start = performance.now();
    const res = await http.call('PUT', `/api/v2/environments/${org}/latency/report/K8S`, {
      artifacts: podsOf([fp]),
    });
    if (res.status !== 201) throw new Error(`report: ${res.status} ${res.body}`);
    latencies.push((await arrived) - start);
  }
  const p50 = percentile(latencies, 50);
  results.report_to_receiver_latency = {
    p50_ms: +p50.toFixed(1),
    p99_ms: +percentile(latencies, 99).toFixed(1),
    goal_p50_ms: GOAL_LATENCY_P50_MS,
    rounds,
  };
  console.log(
    `report → receiver: p50 ${p50.toFixed(1)} ms (goal ≤ ${GOAL_LATENCY_P50_MS} ms), p99 ${percentile(latencies, 99).toFixed(1)} ms over ${rounds} reports`,
  );

  // Throughput: one report starting many artifacts, to 1 and to 8 targets.
  const artifacts = smoke ? 20 : 300;
  for (const targets of [1, 8]) {
    const env = `fanout-${targets}`;
    await action(env, targets);
    const fingerprints = Array.from({ length: artifacts }, () => next++);
    const before = sink.received();
    const start = performance.now();
    await http.call('PUT', `/api/v2/environments/${org}/${env}/report/K8S`, {
      artifacts: podsOf(fingerprints),
    });
    await until(() => sink.received() - before >= artifacts * targets);
    const seconds = (performance.now() - start) / 1000;
    const perSecond = Math.round((artifacts * targets) / seconds);
    results[`deliveries_${targets}_target${targets > 1 ? 's' : ''}`] = {
      deliveries: artifacts * targets,
      seconds: +seconds.toFixed(2),
      per_second: perSecond,
    };
    console.log(
      `${artifacts * targets} deliveries to ${targets} target(s) from one report: ${perSecond}/s (${seconds.toFixed(2)} s)`,
    );
  }
  http.close();
  await app.close();
  sink.server.close();
});
