import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { OrganizationBootstrap, FEATURES } from '#des/accounts';
import { Mode, modeEnv, startApp, TestApp } from './app';

/**
 * The noisy-neighbour harness (issue 27): organization A (the attacker, the
 * test app's own organization) runs an attack while organization B probes
 * `/health/live` and one of its own GETs every 200 ms over real loopback HTTP;
 * the event loop's delay and the process's memory are watched meanwhile.
 * `assertUnharmed` holds B to the bounds every attack must keep.
 */

/** What B must still see while A attacks. */
export const BOUNDS = {
  /** B's `/health/live` and GET p99. */
  probeP99Ms: 200,
  /** The event loop's longest wait (perf_hooks.monitorEventLoopDelay, p99 of 10 ms samples). */
  eventLoopP99Ms: 50,
  /** Growth of the process's RSS above its baseline. */
  rssGrowthBytes: 500 * 1024 * 1024,
};

export interface Neighbourhood {
  /** The app; its organization (`t.org`, `t.http`) is A, the attacker. */
  t: TestApp;
  baseUrl: string;
  /** Organization B and its admin key. */
  orgB: string;
  keyB: string;
  /** fetch as B (relative path). */
  asB(path: string, init?: RequestInit): Promise<Response>;
  /** fetch as A (relative path). */
  asA(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/** Starts the app listening on loopback, with organizations A (`t.org`) and B. */
export async function startNeighbourhood(
  mode: Mode,
  env: NodeJS.ProcessEnv = {},
  options: { orgA?: string; orgB?: string } = {},
): Promise<Neighbourhood> {
  const t = await startApp({ mode, env: await modeEnv(mode, env), org: options.orgA ?? 'attacker' });
  await new Promise<void>((resolve) => t.server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(t.server.address() as AddressInfo).port}`;
  const orgB = options.orgB ?? 'neighbour';
  const { key: keyB } = await t.app.get(OrganizationBootstrap).createOrganization(orgB, [...FEATURES], 20);
  const as =
    (key: string) =>
    (path: string, init: RequestInit = {}) =>
      fetch(`${baseUrl}${path}`, {
        ...init,
        headers: { Authorization: `Bearer ${key}`, ...(init.headers ?? {}) },
      });
  return { t, baseUrl, orgB, keyB, asB: as(keyB), asA: as(t.key), close: () => t.close() };
}

/** B's fewest probes in a watch. */
const MIN_PROBES = 3;

export interface LatencySummary {
  count: number;
  failures: number;
  p50: number;
  p99: number;
  max: number;
}

export interface WatchReport {
  health: LatencySummary;
  get: LatencySummary;
  eventLoop: { p99Ms: number; maxMs: number };
  rss: { baseline: number; peak: number };
  seconds: number;
}

/**
 * Probes as B every `everyMs` (health, then `getPath`), samples RSS, watches
 * the event loop; `stop()` ends it and reports. Start it before the attack,
 * stop it once the attack's requests are all answered.
 */
export function watchNeighbour(
  n: Neighbourhood,
  getPath: string,
  everyMs = 200,
): { stop(): Promise<WatchReport> } {
  const started = Date.now();
  const health: number[] = [];
  const get: number[] = [];
  let failures = 0;
  const rss = { baseline: process.memoryUsage().rss, peak: process.memoryUsage().rss };
  const loop: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  let running = true;
  const timed = async (into: number[], probe: () => Promise<Response>) => {
    const t0 = performance.now();
    try {
      const res = await probe();
      await res.arrayBuffer();
      if (res.status !== 200) failures++;
    } catch {
      failures++;
    }
    into.push(performance.now() - t0);
  };
  const probing = (async () => {
    // A short attack is watched until B has been probed a few times (the last ones may see it end).
    while (running || health.length < MIN_PROBES) {
      const tick = Date.now();
      await Promise.all([timed(health, () => n.asB('/health/live')), timed(get, () => n.asB(getPath))]);
      rss.peak = Math.max(rss.peak, process.memoryUsage().rss);
      const wait = everyMs - (Date.now() - tick);
      if (wait > 0 && running) await new Promise((r) => setTimeout(r, wait));
    }
  })();
  return {
    async stop() {
      running = false;
      await probing;
      loop.disable();
      const report: WatchReport = {
        health: summarize(health, failures),
        get: summarize(get, 0),
        eventLoop: { p99Ms: loop.percentile(99) / 1e6, maxMs: loop.max / 1e6 },
        rss,
        seconds: (Date.now() - started) / 1000,
      };
      report.get.failures = failures;
      return report;
    },
  };
}

function summarize(samples: number[], failures: number): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { count: sorted.length, failures, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 };
}

/** One line for the test log, so each attack's figures are visible in CI. */
export function describeReport(attack: string, r: WatchReport): string {
  const mb = (b: number) => Math.round(b / 1024 / 1024);
  return (
    `# noisy neighbour (${attack}): B health p50 ${r.health.p50.toFixed(1)} / p99 ${r.health.p99.toFixed(1)} ms, ` +
    `GET p99 ${r.get.p99.toFixed(1)} ms over ${r.health.count} probes, event loop p99 ${r.eventLoop.p99Ms.toFixed(1)} / ` +
    `max ${r.eventLoop.maxMs.toFixed(1)} ms, RSS ${mb(r.rss.baseline)} → peak ${mb(r.rss.peak)} MB, ${r.seconds.toFixed(1)} s`
  );
}

/** B was served throughout, within the bounds, while A attacked; the process's memory stayed bounded. */
export function assertUnharmed(attack: string, r: WatchReport): void {
  console.log(describeReport(attack, r));
  assert.ok(r.health.count >= MIN_PROBES, `${attack}: B probed only ${r.health.count} times`);
  assert.equal(r.get.failures, 0, `${attack}: B's probes failed ${r.get.failures} times`);
  assert.ok(
    r.health.p99 <= BOUNDS.probeP99Ms,
    `${attack}: B's /health/live p99 ${r.health.p99.toFixed(1)} ms`,
  );
  assert.ok(r.get.p99 <= BOUNDS.probeP99Ms, `${attack}: B's GET p99 ${r.get.p99.toFixed(1)} ms`);
  assert.ok(
    r.eventLoop.p99Ms <= BOUNDS.eventLoopP99Ms,
    `${attack}: event loop delay p99 ${r.eventLoop.p99Ms.toFixed(1)} ms`,
  );
  assert.ok(
    r.rss.peak - r.rss.baseline <= BOUNDS.rssGrowthBytes,
    `${attack}: RSS grew ${Math.round((r.rss.peak - r.rss.baseline) / 1024 / 1024)} MB`,
  );
}
