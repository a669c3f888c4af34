import { ORGS, Service } from './service';

/**
 * The victim organization's probe, on the test's main thread (the attacker
 * has a thread of its own): GET its environment and /health/live every
 * 200 ms, one small attestation a second, and one evaluation after another
 * (its job), each sample kept with when it started. The figures of a window
 * are the samples started within it. Every attestation answered 201 is
 * remembered, to be found again at the end (nothing acknowledged lost).
 */
export interface Sample {
  at: number;
  ms: number;
  ok: boolean;
  what: string;
  /** Why it failed: the status answered, or the error of the request. */
  failure?: string;
}

export interface Window {
  from: number;
  to: number;
}

export interface WindowFigures {
  /** `failed`: the first sample that failed, if any. */
  reads: { count: number; failures: number; failed?: Sample; p99: number; worst?: Sample };
  writes: { count: number; failures: number; failed?: Sample; p99: number; worst?: Sample };
  jobs: { count: number; failures: number; failed?: Sample; worstMs: number; worst?: Sample };
  rss: Record<string, { peak: number }>;
}

export const VICTIM = { env: 'prod', flow: 'svc', trail: 'main' };
const TRIVIAL = 'package policy\nimport rego.v1\ndefault allow := true\n';

const p99 = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))] ?? 0;
};

export class VictimProbe {
  readonly reads: Sample[] = [];
  readonly writes: Sample[] = [];
  readonly jobs: Sample[] = [];
  readonly rssSamples: { at: number; rss: Record<string, number> }[] = [];
  /** Names of the attestations answered 201. */
  readonly acknowledged: string[] = [];
  private running = false;
  private loops: Promise<void>[] = [];
  private written = 0;
  private evaluations = 0;

  constructor(private readonly service: Service) {}

  /**
   * A request of the victim's. Like the HTTP clients of Go and curl, it is sent again once on a
   * new connection when a kept-alive one was closed under it before any answer (the server's
   * keep-alive timeout and the client's reuse crossing): the writes carry an Idempotency-Key, so
   * sending one again records it once. The time counted is the whole, retry included.
   */
  private async as(path: string, init: RequestInit = {}): Promise<Response> {
    const send = () =>
      fetch(`${this.service.baseUrl}${path}`, {
        ...init,
        headers: { Authorization: `Bearer ${this.service.keys.victim}`, ...(init.headers ?? {}) },
        signal: AbortSignal.timeout(30_000),
      });
    try {
      return await send();
    } catch (error) {
      const cause = (error as Error & { cause?: Error & { code?: string } }).cause;
      const closedUnder = cause?.code === 'UND_ERR_SOCKET' || cause?.code === 'ECONNRESET';
      if (!closedUnder) throw error;
      this.resent++;
      return send();
    }
  }

  /** Requests sent again after a kept-alive connection closed under them. */
  resent = 0;

  /** Times `run`, which answers true, or why it failed. */
  private async timed(into: Sample[], what: string, run: () => Promise<true | string>): Promise<void> {
    const at = Date.now();
    const t0 = performance.now();
    let outcome: true | string;
    try {
      outcome = await run();
    } catch (error) {
      const cause = (error as Error & { cause?: Error }).cause;
      outcome = `${(error as Error).message}${cause ? `: ${cause.message}` : ''}`;
    }
    into.push({
      at,
      ms: performance.now() - t0,
      ok: outcome === true,
      what,
      ...(outcome === true ? {} : { failure: outcome }),
    });
  }

  private read(path: string) {
    return this.timed(this.reads, `GET ${path}`, async () => {
      const res = await this.as(path);
      const body = await res.text();
      return res.status === 200 || `${res.status} ${body.slice(0, 200)}`;
    });
  }

  /** One small attestation; remembered when acknowledged. */
  write(): Promise<void> {
    const name = `probe-${++this.written}`;
    return this.timed(this.writes, `POST attestation ${name}`, async () => {
      const res = await this.as(
        `/api/v2/attestations/${ORGS.victim}/${VICTIM.flow}/trail/${VICTIM.trail}/generic`,
        {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Idempotency-Key': `victim-${name}` },
          body: JSON.stringify({ attestation_name: name, is_compliant: true }),
        },
      );
      const body = await res.text();
      if (res.status === 201) this.acknowledged.push(name);
      return res.status === 201 || `${res.status} ${body.slice(0, 200)}`;
    });
  }

  /** One evaluation of the victim's trail, from its request to its result. */
  job(into = this.jobs): Promise<void> {
    const key = `victim-evaluation-${++this.evaluations}-${Date.now()}`;
    return this.timed(into, 'evaluation', async () => {
      const res = await this.as(`/api/v2/evaluations/${ORGS.victim}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
        body: JSON.stringify({
          context: { trails: [{ flow: VICTIM.flow, trail: VICTIM.trail }] },
          policy: { files: { 'policy.rego': TRIVIAL } },
        }),
      });
      const made = (await res.json()) as { id?: string };
      if (res.status !== 201 || !made.id) return `${res.status} ${JSON.stringify(made).slice(0, 200)}`;
      for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
        const got = (await (await this.as(`/api/v2/evaluations/${ORGS.victim}/${made.id}`)).json()) as {
          status?: string;
        };
        if (got.status === 'completed') return true;
        if (got.status === 'failed') return `failed: ${JSON.stringify(got).slice(0, 200)}`;
        await new Promise((r) => setTimeout(r, 25));
      }
      return 'not completed in 120 s';
    });
  }

  start(): void {
    this.running = true;
    const every = (ms: number, tick: () => Promise<unknown>) =>
      (async () => {
        while (this.running) {
          const t = Date.now();
          await tick();
          const wait = ms - (Date.now() - t);
          if (wait > 0 && this.running) await new Promise((r) => setTimeout(r, wait));
        }
      })();
    this.loops = [
      every(200, () =>
        Promise.all([
          this.read(`/api/v2/environments/${ORGS.victim}/${VICTIM.env}`),
          this.read('/health/live'),
        ]).then(() => this.rssSamples.push({ at: Date.now(), rss: this.service.rss() })),
      ),
      every(1000, () => this.write()),
      every(500, () => this.job()),
    ];
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  figures(w: Window): WindowFigures {
    const inside = (s: { at: number }) => s.at >= w.from && s.at <= w.to;
    const summary = (samples: Sample[]) => {
      const mine = samples.filter(inside);
      const worst = mine.reduce<Sample | undefined>((a, s) => (!a || s.ms > a.ms ? s : a), undefined);
      const failed = mine.filter((s) => !s.ok);
      return {
        count: mine.length,
        failures: failed.length,
        failed: failed[0],
        p99: p99(mine.map((s) => s.ms)),
        worst,
      };
    };
    const jobs = summary(this.jobs);
    const rss: Record<string, { peak: number }> = {};
    for (const s of this.rssSamples.filter(inside))
      for (const [role, bytes] of Object.entries(s.rss))
        rss[role] = { peak: Math.max(rss[role]?.peak ?? 0, bytes) };
    return {
      reads: summary(this.reads),
      writes: summary(this.writes),
      jobs: {
        count: jobs.count,
        failures: jobs.failures,
        failed: jobs.failed,
        worstMs: jobs.worst?.ms ?? 0,
        worst: jobs.worst,
      },
      rss,
    };
  }
}
