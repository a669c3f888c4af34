import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { CaseKind, CaseLimits, hostileCase, HostileCase, Targets } from './cases';
import { documentRoutes, OpenApiDocument } from './openapi';
import { FIXED_CASES, FixedContext, FixedOutcome } from './fixed-cases';

/**
 * The attacker on a thread of its own, at the lowest CPU priority (as the
 * noisy-neighbour harness's client): making and sending 10 MB bodies costs
 * the victim's probe, on the main thread, nothing. Inputs are made here from
 * the document and the seed; the main thread learns each case's label as it
 * starts (to name it if the service dies) and the figures when all end.
 */
export interface CaseResult {
  label: string;
  kind: CaseKind;
  bytes: number;
  /** status → count; -1: the connection failed. */
  statuses: Record<string, number>;
  /** The slowest answer (ms). */
  slowestMs: number;
  /** The largest error body (bytes): an error that echoes its input grows with it. */
  largestErrorBytes: number;
  /** One error message of each distinct 5xx answer or failed connection. */
  failures: string[];
}

export interface RouteAttack {
  baseUrl: string;
  key: string;
  routeName: string;
  kinds: CaseKind[];
  seed: number;
  targets: Targets;
  limits: CaseLimits;
  concurrency: number;
  /** Further rounds (other inputs from the seed) until this instant (epoch ms). */
  until: number;
  requestTimeoutMs: number;
}

type Call =
  | { id: number; type: 'init'; doc: OpenApiDocument }
  | { id: number; type: 'route'; attack: RouteAttack }
  | { id: number; type: 'fixed'; name: string; context: FixedContext };

type Message = { id: number; type: 'started'; label: string } | { id: number; type: 'done'; answer: unknown };

export class Attacker {
  private readonly worker = new Worker(join(__dirname, 'attacker.js'));
  private next = 0;
  private readonly pending = new Map<number, { done(answer: unknown): void; started(label: string): void }>();

  constructor() {
    this.worker.on('message', (m: Message) => {
      const waiting = this.pending.get(m.id);
      if (m.type === 'started') return waiting?.started(m.label);
      waiting?.done(m.answer);
      this.pending.delete(m.id);
    });
  }

  init(doc: OpenApiDocument): Promise<unknown> {
    return this.call({ id: this.next++, type: 'init', doc }, () => {});
  }

  route(attack: RouteAttack, started: (label: string) => void): Promise<CaseResult[]> {
    return this.call({ id: this.next++, type: 'route', attack }, started) as Promise<CaseResult[]>;
  }

  fixed(name: string, context: FixedContext, started: (label: string) => void): Promise<FixedOutcome> {
    return this.call({ id: this.next++, type: 'fixed', name, context }, started) as Promise<FixedOutcome>;
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }

  private call(call: Call, started: (label: string) => void): Promise<unknown> {
    return new Promise((resolve) => {
      this.pending.set(call.id, { done: resolve, started });
      this.worker.postMessage(call);
    });
  }
}

/** Sends one case once; what it was answered. */
export async function send(
  baseUrl: string,
  key: string,
  c: HostileCase,
  timeoutMs: number,
): Promise<{ status: number; ms: number; errorBytes: number; message?: string }> {
  const headers: Record<string, string> = {};
  if (c.withKey) headers.Authorization = `Bearer ${key}`;
  if (c.accept) headers.Accept = c.accept;
  let body: string | FormData | undefined;
  if (c.body?.kind === 'json') {
    headers['Content-Type'] = 'application/json';
    body = c.body.text;
  } else if (c.body) {
    const form = new FormData();
    // JSON parts as text fields, as the Kosli CLI sends them.
    for (const f of c.body.fields) form.append(f.name, f.value);
    for (const f of c.body.files) form.append(f.name, new Blob([Buffer.alloc(f.bytes, 'h')]), f.filename);
    body = form;
  }
  const t0 = performance.now();
  try {
    const res = await fetch(`${baseUrl}${c.url}`, {
      method: c.method,
      headers,
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    // The answer is read whole (a reader that stalls is a fixed case of its own), only its size kept.
    const bytes = (await res.arrayBuffer()).byteLength;
    const ms = performance.now() - t0;
    const errorBytes = res.status >= 400 ? bytes : 0;
    return { status: res.status, ms, errorBytes, message: res.status >= 500 ? `${res.status}` : undefined };
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause;
    return {
      status: -1,
      ms: performance.now() - t0,
      errorBytes: 0,
      message: `${(error as Error).message}${cause ? `: ${cause.message}` : ''}`,
    };
  }
}

async function runCase(attack: RouteAttack, c: HostileCase): Promise<CaseResult> {
  const answers = await Promise.all(
    Array.from({ length: attack.concurrency }, () =>
      send(attack.baseUrl, attack.key, c, attack.requestTimeoutMs),
    ),
  );
  const statuses: Record<string, number> = {};
  for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
  return {
    label: c.label,
    kind: c.kind,
    bytes: c.bytes,
    statuses,
    slowestMs: Math.max(...answers.map((a) => a.ms)),
    largestErrorBytes: Math.max(...answers.map((a) => a.errorBytes)),
    failures: [...new Set(answers.flatMap((a) => (a.message ? [a.message] : [])))],
  };
}

if (!isMainThread && parentPort) {
  try {
    setPriority(19);
  } catch {
    // Refused here: the attacker then competes as it is.
  }
  const port = parentPort;
  let doc: OpenApiDocument;
  port.on('message', (call: Call) => {
    const started = (label: string) => port.postMessage({ id: call.id, type: 'started', label });
    const done = (answer: unknown) => port.postMessage({ id: call.id, type: 'done', answer });
    if (call.type === 'init') {
      doc = call.doc;
      return done(true);
    }
    if (call.type === 'fixed') {
      void FIXED_CASES[call.name]
        .run(call.context, started)
        .then(done, (error: Error) => done({ error: error.message, figures: {} } satisfies FixedOutcome));
      return;
    }
    const attack = call.attack;
    const route = documentRoutes(doc).find((r) => r.name === attack.routeName)!;
    void (async () => {
      const results: CaseResult[] = [];
      for (let round = 0; round === 0 || Date.now() < attack.until; round++) {
        for (const kind of attack.kinds) {
          const c = hostileCase(doc, route, kind, round, attack.seed, attack.targets, attack.limits);
          started(c.label);
          results.push(await runCase(attack, c));
          await new Promise((r) => setImmediate(r));
        }
      }
      done(results);
    })();
  });
}
