import type { Sample, WindowFigures } from './victim';

/** Issue 49's goals while an attacker attacks. */
export const GOALS = {
  readP99Ms: 200,
  writeP99Ms: 200,
  /** The victim's job latency: within 2× its quiet baseline (or baseline + 250 ms for a short one). */
  jobFactor: 2,
  jobSlackMs: 250,
  rssGrowthBytes: 500 * 1024 * 1024,
};

export interface Finding {
  /** The route (or fixed case) and the input in flight: with the seed, enough to replay it. */
  where: string;
  input: string;
  goal: string;
  figure: string;
}

export interface Judged {
  line: string;
  findings: Finding[];
}

const mb = (b: number) => `${Math.round(b / 1024 / 1024)} MB`;

/**
 * The figures of one route's (or case's) window against the goals. `inFlight`
 * names the input being sent when a sample started (the one to blame).
 */
export function judge(
  where: string,
  f: WindowFigures,
  baseline: { jobMs: number; rss: Record<string, number> },
  inFlight: (at: number) => string,
): Judged {
  const findings: Finding[] = [];
  const blame = (s: Sample | undefined) => (s ? inFlight(s.at) : '(none)');
  const miss = (goal: string, figure: string, s: Sample | undefined) =>
    findings.push({ where, input: blame(s), goal, figure });
  if (f.reads.p99 > GOALS.readP99Ms)
    miss(
      `victim read p99 ≤ ${GOALS.readP99Ms} ms`,
      `${f.reads.p99.toFixed(0)} ms (${f.reads.worst?.what})`,
      f.reads.worst,
    );
  const why = (s: Sample | undefined) => (s ? ` (${s.what}: ${s.failure})` : '');
  if (f.reads.failures)
    miss(
      'victim reads answered 200',
      `${f.reads.failures} of ${f.reads.count} failed${why(f.reads.failed)}`,
      f.reads.failed,
    );
  if (f.writes.p99 > GOALS.writeP99Ms)
    miss(`victim write p99 ≤ ${GOALS.writeP99Ms} ms`, `${f.writes.p99.toFixed(0)} ms`, f.writes.worst);
  if (f.writes.failures)
    miss(
      'victim writes answered 201',
      `${f.writes.failures} of ${f.writes.count} failed${why(f.writes.failed)}`,
      f.writes.failed,
    );
  const jobLimit = Math.max(baseline.jobMs * GOALS.jobFactor, baseline.jobMs + GOALS.jobSlackMs);
  if (f.jobs.worstMs > jobLimit)
    miss(
      `victim job ≤ ${jobLimit.toFixed(0)} ms (2× baseline ${baseline.jobMs.toFixed(0)})`,
      `${f.jobs.worstMs.toFixed(0)} ms`,
      f.jobs.worst,
    );
  if (f.jobs.failures)
    miss(
      'victim jobs completed',
      `${f.jobs.failures} of ${f.jobs.count} failed${why(f.jobs.failed)}`,
      f.jobs.failed,
    );
  const growth = Object.entries(f.rss).map(([role, r]) => ({
    role,
    growth: r.peak - (baseline.rss[role] ?? r.peak),
  }));
  for (const g of growth.filter((x) => x.growth > GOALS.rssGrowthBytes))
    findings.push({
      where,
      input: '(window)',
      goal: `RSS ≤ +${mb(GOALS.rssGrowthBytes)}`,
      figure: `${g.role} +${mb(g.growth)}`,
    });
  const line =
    `# hostile (${where}): victim read p99 ${f.reads.p99.toFixed(0)} ms / write p99 ${f.writes.p99.toFixed(0)} ms ` +
    `(${f.reads.count}/${f.writes.count} probes), job worst ${f.jobs.worstMs.toFixed(0)} ms of ${f.jobs.count}, ` +
    `RSS ${growth.map((g) => `${g.role} +${mb(Math.max(0, g.growth))}`).join(', ')}`;
  return { line, findings };
}

export function describeFinding(f: Finding, seed: number): string {
  return `${f.where} — input ${f.input} (seed ${seed}): ${f.goal} missed: ${f.figure}`;
}
