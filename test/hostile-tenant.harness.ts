// des-test: alone (it measures the victim organization's latency and the RSS: nothing may run beside it)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_JSON_DEPTH } from '#des/platform';
import { Attacker, CaseResult } from './support/hostile/attacker';
import { kindsOf } from './support/hostile/cases';
import { FIXED_CASES, FixedContext } from './support/hostile/fixed-cases';
import { describeFinding, Finding, judge } from './support/hostile/goals';
import { documentRoutes, DocumentRoute, OpenApiDocument } from './support/hostile/openapi';
import { hostileSeed, random } from './support/hostile/seed';
import { ORGS, Service, startService } from './support/hostile/service';
import { seedSizes, seedTenants, targetsOf } from './support/hostile/tenant-data';
import { VICTIM, VictimProbe } from './support/hostile/victim';
import { eventually } from './support/processes';

/**
 * Issue 49's hostile-tenant harness (ADR 0042). For every operation of the
 * running service's OpenAPI document, hostile inputs derived from its schemas
 * are sent by the attacker organization (and by a stranger without a key),
 * several at once, while the victim organization's probe measures its read
 * and write p99, its job latency and the processes' RSS. A goal missed or a
 * process that exits fails the run naming the route, the input and the seed.
 * Then the attacks of the issue's table run as named fixed cases.
 *
 *   DES_HOSTILE_SEED      replay a run's inputs (else rotated; printed as `# hostile seed: N`)
 *   DES_HOSTILE_BUDGET_S  the whole file's time budget (default 600)
 *   DES_HOSTILE_MODES     embedded,server (default both)
 *   DES_HOSTILE_ROUTES    only routes whose `METHOD /path` contains one of these (comma-separated)
 *   DES_HOSTILE_FIXED     only fixed cases whose name contains one of these; `none`: no fixed case
 *   DES_HOSTILE_FIXED_MODES  modes the fixed cases run in (default embedded)
 *   DES_HOSTILE_FULL=1    the issue's sizes (51 MB trail, 4,000 artifacts, 20,000 connections…)
 *   DES_HOSTILE_CONCURRENCY  copies of each input sent at once (default 3)
 *   DES_HOSTILE_MANY_KEYS keys in a free-form object (default 100,000; a tenth beside closed properties)
 */

const SEED = hostileSeed();
console.log(`# hostile seed: ${SEED} (replay: DES_HOSTILE_SEED=${SEED})`);
const BUDGET_MS = Number(process.env.DES_HOSTILE_BUDGET_S ?? 600) * 1000;
const STARTED = Date.now();
const MODES = (process.env.DES_HOSTILE_MODES ?? 'embedded,server').split(',') as ('embedded' | 'server')[];
const FIXED_MODES = (process.env.DES_HOSTILE_FIXED_MODES ?? 'embedded').split(',');
const FULL = process.env.DES_HOSTILE_FULL === '1';
const CONCURRENCY = Number(process.env.DES_HOSTILE_CONCURRENCY ?? 3);
const listed = (value: string | undefined) =>
  value
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const ROUTE_FILTER = listed(process.env.DES_HOSTILE_ROUTES);
const FIXED_FILTER = listed(process.env.DES_HOSTILE_FIXED);
/** When each phase ends, as shares of the budget: every route runs its base round even past its share. */
const PHASE_END = { embeddedRoutes: 0.4, serverRoutes: 0.95 };
const LIMITS = {
  jsonBytes: 10 * 1024 * 1024,
  fileBytes: 10 * 1024 * 1024,
  requestFileBytes: 25 * 1024 * 1024,
  maxDepth: MAX_JSON_DEPTH,
  manyKeys: Number(process.env.DES_HOSTILE_MANY_KEYS ?? 100_000),
};

const fixedCases = Object.keys(FIXED_CASES).filter((name) =>
  FIXED_FILTER?.[0] === 'none' ? false : !FIXED_FILTER || FIXED_FILTER.some((f) => name.includes(f)),
);

/** Seed-shuffled (server mode runs the first ones that fit its share: another subset each run). */
function shuffled<T>(items: T[], seed: number): T[] {
  const rng = random(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

function summarizeCases(results: CaseResult[]): { statuses: string; notes: string[] } {
  const statuses: Record<string, number> = {};
  const notes: string[] = [];
  for (const r of results) {
    for (const [s, n] of Object.entries(r.statuses)) statuses[s] = (statuses[s] ?? 0) + n;
    if (r.failures.length) notes.push(`${r.label}: ${r.failures.join('; ')}`);
    if (r.largestErrorBytes > 64 * 1024)
      notes.push(`${r.label}: an error body of ${r.largestErrorBytes} bytes (echoes its input?)`);
  }
  return {
    statuses: Object.entries(statuses)
      .map(([s, n]) => `${s}×${n}`)
      .join(' '),
    notes,
  };
}

for (const mode of MODES) {
  describe(`hostile tenant (${mode} mode)`, () => {
    let service: Service;
    let probe: VictimProbe;
    let attacker: Attacker;
    let doc: OpenApiDocument;
    let context: FixedContext;
    const baseline = { jobMs: 0, rss: {} as Record<string, number> };
    /** What the attacker started when (to name the input in flight when a sample went wrong). */
    const timeline: { at: number; label: string }[] = [];
    const inFlight = (at: number) => {
      let label = '(between inputs)';
      for (const t of timeline) if (t.at <= at) label = t.label;
      return label;
    };

    before(async () => {
      const t0 = Date.now();
      service = await startService(mode, { DES_ACTIONS_ALLOW_PRIVATE_TARGETS: 'true' });
      const sizes = seedSizes();
      context = {
        ...(await seedTenants(service, sizes)),
        full: FULL,
        idleConnections: Number(process.env.DES_HOSTILE_IDLE_CONNECTIONS ?? (FULL ? 20_000 : 2_000)),
      };
      doc = (await (await fetch(`${service.baseUrl}/api/v2/openapi.json`)).json()) as OpenApiDocument;
      attacker = new Attacker();
      await attacker.init(doc);
      probe = new VictimProbe(service);
      const quiet: Parameters<VictimProbe['job']>[0] = [];
      for (let i = 0; i < 4; i++) await probe.job(quiet);
      baseline.jobMs = quiet.map((s) => s.ms).sort((a, b) => a - b)[2];
      baseline.rss = service.rss();
      console.log(
        `# hostile (${mode}) setup: ${((Date.now() - t0) / 1000).toFixed(1)} s; seeded ${JSON.stringify(sizes)}; ` +
          `quiet job ${baseline.jobMs.toFixed(0)} ms; RSS ${Object.entries(baseline.rss)
            .map(([r, b]) => `${r} ${Math.round(b / 1048576)} MB`)
            .join(', ')}`,
      );
      probe.start();
    });
    after(async () => {
      await probe?.stop();
      await attacker?.close();
      await service?.stop();
    });

    /** Runs `attack` in a window of the probe's; judges it; restarts a service that died. */
    async function watched(where: string, attack: () => Promise<string>): Promise<Finding[]> {
      const from = Date.now();
      const summary = await attack();
      // The probe's next samples see the attack's end (a stalled loop shows in them).
      await new Promise((r) => setTimeout(r, 250));
      const judged = judge(where, probe.figures({ from, to: Date.now() }), baseline, inFlight);
      console.log(`${judged.line}; ${summary}`);
      const died = service.died();
      if (died) {
        judged.findings.push({
          where,
          input: inFlight(Date.now()),
          goal: 'the process alive',
          figure: died.slice(0, 1500),
        });
        console.log(`# hostile (${where}): the service died; restarting it`);
        await probe.stop();
        await service.restart();
        baseline.rss = service.rss();
        probe.start();
      }
      return judged.findings;
    }

    it('keeps the victim within the goals while every route of the document is attacked', async () => {
      const all = documentRoutes(doc);
      const chosen = all.filter((r) => !ROUTE_FILTER || ROUTE_FILTER.some((f) => r.name.includes(f)));
      const phaseEnd =
        STARTED + BUDGET_MS * (mode === 'embedded' ? PHASE_END.embeddedRoutes : PHASE_END.serverRoutes);
      // Embedded mode: every route, each run. Server mode: a seed-chosen subset within its share.
      const order: DocumentRoute[] = mode === 'embedded' ? chosen : shuffled(chosen, SEED);
      const targets = targetsOf(context);
      const findings: Finding[] = [];
      let covered = 0;
      for (const [i, route] of order.entries()) {
        const left = phaseEnd - Date.now();
        if (mode === 'server' && left <= 0 && covered >= 8) break;
        const until = Date.now() + Math.max(0, left / (order.length - i));
        findings.push(
          ...(await watched(route.name, async () => {
            const results = await attacker.route(
              {
                baseUrl: service.baseUrl,
                key: service.keys.attacker,
                routeName: route.name,
                kinds: kindsOf(route),
                seed: SEED,
                targets,
                limits: LIMITS,
                concurrency: CONCURRENCY,
                until,
                requestTimeoutMs: 60_000,
              },
              (label) => timeline.push({ at: Date.now(), label }),
            );
            const { statuses, notes } = summarizeCases(results);
            for (const n of notes) console.log(`#   note: ${n}`);
            return `${results.length} inputs × ${CONCURRENCY}: ${statuses}`;
          })),
        );
        covered++;
      }
      console.log(
        `# hostile (${mode}): ${covered} of ${all.length} routes of the document attacked (seed ${SEED})`,
      );
      // Every finding on a line of its own (an assertion's diff would cut a long list short).
      for (const f of findings) console.log(`# hostile finding (${mode}): ${describeFinding(f, SEED)}`);
      assert.equal(
        findings.length,
        0,
        `${findings.length} goals missed while routes were attacked (seed ${SEED}): see the # hostile finding lines`,
      );
    });

    for (const name of FIXED_MODES.includes(mode) ? fixedCases : []) {
      const fixed = FIXED_CASES[name];
      it(`fixed case: ${name} — ${fixed.describe(FULL)} (issue 49, ${fixed.fixedBy})`, async () => {
        let figures = '';
        const findings = await watched(`fixed: ${name}`, async () => {
          const outcome = await attacker.fixed(name, { ...context, baseUrl: service.baseUrl }, (label) =>
            timeline.push({ at: Date.now(), label: `${name}: ${label}` }),
          );
          figures = JSON.stringify(outcome.figures);
          return `${outcome.error ? `attack error: ${outcome.error}; ` : ''}${figures}`;
        });
        assert.deepEqual(
          findings.map((f) => describeFinding(f, SEED)),
          [],
          `${name}: goals missed; ${figures}`,
        );
      });
    }

    it('loses nothing the victim was acknowledged', async () => {
      await probe.stop();
      const acknowledged = [...probe.acknowledged];
      const missing = await eventually(
        async () => {
          const res = await fetch(
            `${service.baseUrl}/api/v2/trails/${ORGS.victim}/${VICTIM.flow}/${VICTIM.trail}`,
            {
              headers: { Authorization: `Bearer ${service.keys.victim}` },
            },
          );
          const text = await res.text();
          return acknowledged.filter((n) => !text.includes(`"${n}"`));
        },
        (m) => m.length === 0,
        30_000,
      ).catch((error: Error) => [error.message]);
      console.log(
        `# hostile (${mode}): ${acknowledged.length} acknowledged victim writes, ${missing.length} missing; ` +
          `${probe.resent} victim requests sent again after a kept-alive connection closed under them`,
      );
      assert.deepEqual(missing, []);
    });
  });
}
