import assert from 'node:assert/strict';
import { type EventStore, microsToSeconds } from '#des/event-store';
import { EVENT_STORE, READ_STORE } from '#des/platform';
import { CHECKPOINTS, positionsFrom } from '#des/projections';
import type { ReadStore } from '#des/read-store';
import type { TestApp } from './app';
import { binary, textOf } from './pdf';

/** The clock the event store records with (UNIX seconds). */
export const wallClock = () => (performance.timeOrigin + performance.now()) / 1000;

/** Returns once the clock is past `at` (by more than a microsecond): whatever is recorded next is recorded later. */
export async function clockPast(at: number): Promise<void> {
  while (wallClock() <= at + 0.000_002) await new Promise((r) => setImmediate(r));
}

export interface Answer {
  path: string;
  status: number;
  body: unknown;
}

/** Waits until every projection and reaction has passed the log's head: what a step causes is all recorded. */
export async function settle(t: TestApp): Promise<void> {
  const events = t.app.get<symbol, EventStore>(EVENT_STORE);
  const reads = t.app.get<symbol, ReadStore>(READ_STORE);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const head = (await events.head()).position;
    const positions = [...positionsFrom(await reads.collection(CHECKPOINTS).find({})).values()];
    const passed = positions.length > 0 && positions.every((position) => position >= head);
    if (passed && (await events.head()).position === head) return;
    if (Date.now() > deadline) throw new Error(`the projector did not pass position ${head} in 20 s`);
    await new Promise((r) => setTimeout(r, 4));
  }
}

/**
 * The instant a step's reads show: once everything it caused is recorded, the
 * last event's instant, with the clock moved past it so the next step is later.
 */
export async function stepInstant(t: TestApp): Promise<number> {
  await settle(t);
  const at = microsToSeconds((await t.app.get<symbol, EventStore>(EVENT_STORE).head()).recordedAt);
  await clockPast(at);
  return at;
}

type Agent = TestApp['http'];

/**
 * A PDF's text without what names when it was asked for rather than what it
 * shows: the "As of" and "Generated" rows, the running header's instant, the
 * ledger check's (now, for a live report), and the signed checkpoint row (a
 * report printed at once says the next checkpoint will cover it; asked later
 * for that instant, it names the checkpoint that did).
 */
function pdfText(pdf: Buffer): string {
  let inCheckpointRow = false;
  return (
    textOf(pdf)
      .split('\n')
      .filter((line) => {
        if (/^\s*Signed checkpoint\s/.test(line)) inCheckpointRow = true;
        else if (line.trim() === '') inCheckpointRow = false;
        return !inCheckpointRow && !/^\s*(As of|Generated)\s|· as of \d{4}-|head\?at=/.test(line);
      })
      .join('\n')
      // The row's height moves what follows, and the text's columns with it: layout says nothing of what it shows.
      .replace(/\n(\s*\n)+/g, '\n')
      .replace(/[ \t]+/g, ' ')
  );
}

/** A read as the API answers it (a CSV as its text, a PDF as its text), by an agent holding an organization's key. */
export async function answer(http: Agent, path: string): Promise<Answer> {
  if (path.includes('/audit_pdf')) {
    const res = await http.get(path).buffer(true).parse(binary);
    const body = res.status === 200 ? pdfText(res.body as Buffer) : JSON.parse(String(res.body));
    return { path, status: res.status, body };
  }
  const res = await http.get(path);
  return { path, status: res.status, body: res.type === 'text/csv' ? res.text : res.body };
}

export const withAt = (path: string, at: number) => `${path}${path.includes('?') ? '&' : '?'}at=${at}`;

/**
 * An answer without its links: `_links` and `html_url` name the query asked
 * (its `at`, the address it came to), not what was known then; the rest of an
 * answer must be equal.
 */
export function comparable(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(comparable);
  if (body && typeof body === 'object') {
    const { _links: _l, html_url: _h, ...rest } = body as Record<string, unknown>;
    return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, comparable(v)]));
  }
  return body;
}

/** After the history: every read, asked `?at=` each captured instant, answers what the live read answered then. */
export async function assertSameAsThen(
  http: Agent,
  seen: { at: number; answers: Answer[] }[],
): Promise<void> {
  for (const { at, answers } of seen) {
    for (const live of answers) {
      const past = await answer(http, withAt(live.path, at));
      assert.equal(past.status, live.status, `${live.path} at ${at}: ${JSON.stringify(past.body)}`);
      assert.deepEqual(comparable(past.body), comparable(live.body), `${live.path} at ${at}`);
    }
  }
}
