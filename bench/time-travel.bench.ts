import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OrganizationBootstrap } from '#des/accounts';
import { SqliteEventStore } from '#des/event-store';
import { noteSigner, verifyTrees } from '#des/ledger';
import { createHttpApp } from '#des/service';
import { client, type Client, percentile } from './support/http-client';
import { benchConfig } from './support/service';
import { runBenchmark, smoke } from './support/run';

/**
 * Time travel and tamper evidence (issue: auditors), embedded mode over
 * loopback: `?at=` reads of an environment with many snapshots and of a
 * trail with many events, against the live read in the same run (goal ≤ 3×),
 * and `verify` speed (goal ≥ 100k events/s). Figures go to
 * bench/results/time-travel.json.
 */
const results: Record<string, unknown> = {};
const GOAL_RATIO = 3;
const GOAL_VERIFY_PER_SECOND = 100_000;
const hex = (n: number) => n.toString(16).padStart(64, '0');
const now = () => (performance.timeOrigin + performance.now()) / 1000;

async function timed(http: Client, paths: string[]): Promise<number[]> {
  const samples: number[] = [];
  for (const path of paths) {
    const start = performance.now();
    const res = await http.call('GET', path);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.body.slice(0, 200)}`);
    samples.push(performance.now() - start);
  }
  return samples;
}

function compare(label: string, live: number[], past: number[]) {
  const liveP50 = percentile(live, 50);
  const pastP50 = percentile(past, 50);
  const ratio = pastP50 / liveP50;
  console.log(
    `${label}: ?at= p50 ${pastP50.toFixed(1)} ms, live p50 ${liveP50.toFixed(1)} ms: ${ratio.toFixed(1)}× (goal ≤ ${GOAL_RATIO}×)`,
  );
  return { at_p50_ms: pastP50, live_p50_ms: liveP50, ratio: +ratio.toFixed(2), goal_ratio: GOAL_RATIO };
}

runBenchmark('time-travel', results, async () => {
  const snapshots = smoke ? 200 : 10_000;
  const trailEvents = smoke ? 100 : 1_000;
  const app = await createHttpApp({
    config: benchConfig(mkdtempSync(join(tmpdir(), 'des-bench-tt-'))),
    role: 'all',
  });
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as AddressInfo).port;
  const key = (await app.get(OrganizationBootstrap).createOrganization('bench', [], 10)).key;
  const http = client(port, { authorization: `Bearer ${key}` });

  // An environment with many snapshots: each report swaps the one running artifact.
  await http.call('PUT', '/api/v2/environments/bench', { name: 'k8s', type: 'K8S' });
  const envInstants: number[] = [];
  for (let i = 1; i <= snapshots; i++) {
    const res = await http.call('PUT', '/api/v2/environments/bench/k8s/report/K8S', {
      artifacts: [
        {
          creationTimestamp: 1_790_000_000,
          digests: { [`svc:${i}`]: `sha256:${hex(i)}` },
          namespace: 'b',
          podName: 'p',
        },
      ],
    });
    if (res.status !== 201) throw new Error(`report ${i}: ${res.status}`);
    if (i % Math.ceil(snapshots / 50) === 0) envInstants.push(now());
  }
  // A trail with many events.
  await http.call('PUT', '/api/v2/flows/bench', { name: 'svc' });
  await http.call('PUT', '/api/v2/trails/bench/svc', { name: 'long' });
  const trailInstants: number[] = [];
  for (let i = 0; i < trailEvents; i++) {
    await http.call('POST', '/api/v2/attestations/bench/svc/trail/long/generic', {
      attestation_name: `a${i % 50}`,
    });
    if (i % Math.ceil(trailEvents / 50) === 0) trailInstants.push(now());
  }
  const shuffled = <T>(xs: T[]) => [...xs].sort(() => Math.random() - 0.5);
  const runs = smoke ? 10 : 50;
  const pick = (xs: number[]) => shuffled(xs).slice(0, runs);

  results.environment = {
    snapshots,
    ...compare(
      `environment with ${snapshots} snapshots`,
      await timed(http, Array(runs).fill('/api/v2/environments/bench/k8s')),
      await timed(
        http,
        pick(envInstants).map((at) => `/api/v2/environments/bench/k8s?at=${at}`),
      ),
    ),
  };
  results.snapshot = {
    snapshots,
    ...compare(
      `snapshot in force (@T) among ${snapshots}`,
      await timed(http, Array(runs).fill('/api/v2/environments/bench/k8s/snapshots/-1')),
      await timed(
        http,
        pick(envInstants).map((at) => `/api/v2/environments/bench/k8s/snapshots/@${at}`),
      ),
    ),
  };
  results.trail = {
    events: trailEvents,
    ...compare(
      `trail with ${trailEvents} events`,
      await timed(http, Array(runs).fill('/api/v2/trails/bench/svc/long')),
      await timed(
        http,
        pick(trailInstants).map((at) => `/api/v2/trails/bench/svc/long?at=${at}`),
      ),
    ),
  };
  http.close();
  await app.close();

  // verify: a log of many events in a few organizations, walked and rebuilt into their trees.
  const total = smoke ? 20_000 : 300_000;
  const store = new SqliteEventStore({
    path: join(mkdtempSync(join(tmpdir(), 'des-bench-verify-')), 'events.db'),
  });
  for (let i = 0; i < total; i += 500) {
    const org = `org${(i / 500) % 4}`;
    await store.append(
      `trail-${org}/f/t${i}`,
      Array.from({ length: 500 }, (_, j) => ({
        id: randomUUID(),
        type: 'attestation_reported',
        data: { name: `a${j}`, compliant: j % 7 !== 0, evidence: { tests: j, failures: j % 3 } },
        metadata: { org, actor: { kind: 'service_account', name: 'ci' } },
      })),
      'no_stream',
    );
  }
  const started = performance.now();
  const report = await verifyTrees(store, noteSigner('bench', randomBytes(32)).vkey);
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  const perSecond = Math.round(report.events / seconds);
  if (report.trees.some((t) => t.failed)) throw new Error('a checkpoint fails in a log nobody touched');
  results.verify = {
    events: report.events,
    seconds: +seconds.toFixed(2),
    per_second: perSecond,
    goal_per_second: GOAL_VERIFY_PER_SECOND,
  };
  console.log(
    `verify ${report.events} events rebuilt into ${report.trees.length} trees: ${perSecond}/s (goal ≥ ${GOAL_VERIFY_PER_SECOND}/s)`,
  );
});
