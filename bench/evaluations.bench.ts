import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchConfig } from './support/service';
import { runBenchmark, sized } from './support/run';
import { createHttpApp } from '#des/service';
import { OrganizationBootstrap } from '#des/accounts';
import { evaluationStream } from '#des/evaluations';
import { SqliteEventStore } from '#des/event-store';
import { TrailTimeMachine } from '#des/trails';
import { OpaCompiler, PolicyEvaluator } from '#des/policy-engine';
import { client, Client, percentile } from './support/http-client';
import { seedNoise } from './support/seed';
import { startRedis } from '../test/support/engines';
import { describeScans, wireServers } from '../test/support/wire-servers';

/**
 * Evaluations benchmarks (issue: evaluations). Embedded mode over HTTP on
 * loopback. Job latency is read from the log: the instant
 * `evaluation_completed` was recorded minus the instant `evaluation_requested`
 * was, so polling for the answer does not count.
 */
const results: Record<string, unknown> = {};
const TRAILS = sized(100, 10);
const ATTESTATIONS_PER_TRAIL = 29; // + trail_started = 30 events per trail
const RUNS = sized(40, 5);

const POLICY = {
  'policy.rego': `package policy
import rego.v1
import data.lib.naming

default allow := false
allow if count(violations) == 0

violations contains sprintf("%s: %s", [t.name, t.compliance_status.status]) if {
  some t in input.trails
  t.compliance_status.status != "COMPLIANT"
}
violations contains sprintf("%s is badly named", [t.name]) if {
  some t in input.trails
  not naming.ok(t.name)
}
`,
  'lib/naming.rego': 'package lib.naming\nimport rego.v1\nok(name) if regex.match(`^t[0-9]+$`, name)\n',
};

interface Latency {
  p50_ms: number;
  p90_ms: number;
  max_ms: number;
}

async function jobLatency(
  noise: number,
  serverEnv: NodeJS.ProcessEnv = {},
): Promise<
  Latency & {
    events_in_log: number;
    seed_s: number;
    start_s: number;
    runs: number;
    client_observed_p50_ms: number;
    ten_trails_changed_each_run: Latency;
    no_kept_folds: Latency;
  }
> {
  const dataDir = mkdtempSync(join(tmpdir(), 'des-bench-eval-'));
  const config = benchConfig(dataDir, serverEnv);
  let t = performance.now();
  await seedNoise(join(dataDir, 'events.db'), noise);
  const seededS = (performance.now() - t) / 1000;
  t = performance.now();
  const app = await createHttpApp({ config, role: 'all' });
  await app.listen(0, '127.0.0.1');
  const startS = (performance.now() - t) / 1000;
  const port = (app.getHttpServer().address() as { port: number }).port;
  const key = (await app.get(OrganizationBootstrap).createOrganization('bench', ['evaluations'], 10)).key;
  const http = client(port, { authorization: `Bearer ${key}` });
  await ok(http, 'PUT', '/api/v2/flows/bench', { name: 'svc' });
  const trails = Array.from({ length: TRAILS }, (_, i) => `t${i}`);
  for (const trail of trails) {
    await ok(http, 'PUT', '/api/v2/trails/bench/svc', {
      name: trail,
      git_commit_info: { sha1: `c0ffee${trail}` },
    });
    for (let a = 0; a < ATTESTATIONS_PER_TRAIL; a++) {
      await ok(http, 'POST', `/api/v2/attestations/bench/svc/trail/${trail}/junit`, {
        attestation_name: `suite-${a % 10}`,
        junit_results: [{ name: 'all', tests: 10, failures: 0, errors: 0 }],
      });
    }
  }
  const store = new SqliteEventStore({ path: join(dataDir, 'events.db') });
  const logSize = (await store.head()).position;
  const body = {
    context: { trails: trails.map((trail) => ({ flow: 'svc', trail })) },
    policy: { files: POLICY },
  };
  const timeMachine = app.get(TrailTimeMachine);
  // Client-observed: from sending the POST to the first GET that shows the result (polled every 2 ms).
  const observed: number[] = [];
  const measure = async (before: (i: number) => Promise<void>) => {
    const latencies: number[] = [];
    observed.length = 0;
    for (let i = 0; i <= RUNS; i++) {
      await before(i);
      latencies.push(await evaluateOnce());
    }
    latencies.shift(); // the first warms the policy cache
    observed.shift();
    latencies.sort((a, b) => a - b);
    observed.sort((a, b) => a - b);
    return latencies;
  };
  const evaluateOnce = async () => {
    const started = performance.now();
    const id = JSON.parse((await ok(http, 'POST', '/api/v2/evaluations/bench', body)).body).id as string;
    for (;;) {
      const res = JSON.parse((await ok(http, 'GET', `/api/v2/evaluations/bench/${id}`)).body);
      if (res.status === 'failed') throw new Error(JSON.stringify(res.error));
      if (res.status === 'completed') {
        if (!res.result.allow) throw new Error(JSON.stringify(res.result));
        observed.push(performance.now() - started);
        break;
      }
      await new Promise((r) => setTimeout(r, 2));
    }
    const [requested, completed] = await store.readStream(evaluationStream('bench', id));
    return (completed.recordedAt - requested.recordedAt) / 1000;
  };
  // Unchanged trails; then 10 trails gain an attestation before each run; then no kept folds at all.
  const unchanged = await measure(async () => undefined);
  const clientObservedP50 = percentile(observed, 50);
  const changing = await measure(async (i) => {
    for (let k = 0; k < 10; k++) {
      await ok(http, 'POST', `/api/v2/attestations/bench/svc/trail/t${(i * 10 + k) % TRAILS}/junit`, {
        attestation_name: `late-${i}`,
        junit_results: [{ name: 'all', tests: 10, failures: 0, errors: 0 }],
      });
    }
  });
  const cold = await measure(async () => timeMachine.forget());
  await store.close();
  http.close();
  await app.close();
  const figures = (latencies: number[]) => ({
    p50_ms: percentile(latencies, 50),
    p90_ms: percentile(latencies, 90),
    max_ms: +latencies[latencies.length - 1].toFixed(1),
  });
  return {
    events_in_log: logSize,
    seed_s: +seededS.toFixed(1),
    start_s: +startS.toFixed(1),
    runs: RUNS,
    ...figures(unchanged),
    client_observed_p50_ms: clientObservedP50,
    ten_trails_changed_each_run: figures(changing),
    no_kept_folds: figures(cold),
  };
}

async function ok(http: Client, method: string, path: string, body?: unknown) {
  const res = await http.call(method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.body}`);
  return res;
}

async function compileAndEvaluate(): Promise<void> {
  const compiler = new OpaCompiler(mkdtempSync(join(tmpdir(), 'des-bench-opa-')));
  const cold: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await compiler.compile({ ...POLICY, 'extra.rego': `package extra\nn := ${i}\n` });
    cold.push(performance.now() - t);
  }
  cold.sort((a, b) => a - b);
  const compiled = await compiler.compile(POLICY);
  const trail = (i: number) => ({
    name: `t${i}`,
    compliance_status: { status: 'COMPLIANT' },
    attestations: Array.from({ length: 10 }, (_, a) => ({ name: `suite-${a}`, is_compliant: true })),
  });
  const input = { trails: Array.from({ length: TRAILS }, (_, i) => trail(i)) };
  const evaluator = new PolicyEvaluator({ budgetMs: 5000 });
  await evaluator.evaluate(compiled, input, {});
  const seconds = sized(5, 1);
  const deadline = performance.now() + seconds * 1000;
  let n = 0;
  while (performance.now() < deadline) {
    await evaluator.evaluate(compiled, input, { params: { n } });
    n++;
  }
  const parallel = performance.now();
  let m = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (performance.now() < parallel + seconds * 1000) {
        await evaluator.evaluate(compiled, input, { params: { m } });
        m++;
      }
    }),
  );
  await evaluator.close();
  results.policy_engine = {
    cold_compile_p50_ms: percentile(cold, 50),
    cold_compile_max_ms: Math.round(cold[cold.length - 1]),
    evaluations_per_s_sequential: Math.round(n / seconds),
    evaluations_per_s_4_callers: Math.round(m / seconds),
    input_trails: TRAILS,
    input_bytes: JSON.stringify(input).length,
  };
  console.log(
    `Policy engine: cold compile p50 ${percentile(cold, 50)} ms (max ${Math.round(cold[cold.length - 1])}); ` +
      `opa-wasm over ${TRAILS} small trails (${Math.round(JSON.stringify(input).length / 1024)} KB of input): ` +
      `${Math.round(n / seconds)} evaluations/s sequential, ${Math.round(m / seconds)}/s with 4 callers`,
  );
}

runBenchmark('evaluations', results, async () => {
  await compileAndEvaluate();
  const small = await jobLatency(10_000 - TRAILS * (ATTESTATIONS_PER_TRAIL + 1));
  results.job_latency_10k_events = { ...small, goal_p50_ms: 10 };
  console.log(
    `Evaluation of ${TRAILS} trails, warm policy cache, ${small.events_in_log} events in the log: ` +
      `job latency p50 ${small.p50_ms} ms, p90 ${small.p90_ms} ms (goal p50 <= 10 ms), ` +
      `POST to result seen by the client p50 ${small.client_observed_p50_ms} ms; ` +
      `with 10 trails changed before each run p50 ${small.ten_trails_changed_each_run.p50_ms} ms; ` +
      `with no kept folds p50 ${small.no_kept_folds.p50_ms} ms`,
  );
  const large = await jobLatency(sized(1_000_000, 20_000));
  const ratio = +(large.p50_ms / small.p50_ms).toFixed(2);
  results.job_latency_1m_events = { ...large, ratio_to_10k: ratio, goal_p50_ms: 10, goal_ratio: 1.5 };
  console.log(
    `Same with ${large.events_in_log} events in the log (start ${large.start_s} s): ` +
      `p50 ${large.p50_ms} ms, p90 ${large.p90_ms} ms, ${ratio}x the 10k figure (goals p50 <= 10 ms, <= 1.5x); ` +
      `10 trails changed p50 ${large.ten_trails_changed_each_run.p50_ms} ms; no kept folds p50 ${large.no_kept_folds.p50_ms} ms`,
  );

  // Server mode in one process: BullMQ on Redis, read models on each MongoDB-wire server in turn
  // (FerretDB on each backend, side by side, when the user has no MongoDB).
  const servers: Record<string, unknown> = {};
  for (const wire of wireServers()) {
    const [redis, mongo] = [await startRedis(), await wire.start()];
    try {
      const database = `bench${Date.now()}`;
      const server = await jobLatency(0, {
        REDIS_URL: redis.url,
        DES_QUEUE_PREFIX: 'bench',
        MONGODB_URL: mongo.url,
        MONGODB_DATABASE: database,
      });
      const scans = await mongo.scans?.();
      servers[wire.name] = {
        ...server,
        engines: `${redis.description}; ${mongo.description}`,
        goal_client_observed_p50_ms: 40,
        ...(scans ? { postgresql_scans: scans[database] } : {}),
      };
      if (wire.default) results.job_latency_server_mode = servers[wire.name];
      console.log(
        `Server mode (BullMQ on Redis, read models on ${mongo.description}), ${server.events_in_log} events: ` +
          `job latency p50 ${server.p50_ms} ms, p90 ${server.p90_ms} ms; POST to result seen p50 ${server.client_observed_p50_ms} ms (goal <= 40 ms)` +
          (scans ? `; PostgreSQL: ${describeScans(scans, database)}` : ''),
      );
    } finally {
      await redis.stop();
      await mongo.stop();
    }
  }
  results.job_latency_server_mode_by_server = servers;
});
