import assert from 'node:assert/strict';
import type { EventStore } from '#des/event-store';
import { EVENT_STORE, READ_STORE } from '#des/platform';
import { CHECKPOINTS } from '#des/projections';
import type { ReadStore } from '#des/read-store';
import type { TestApp } from './app';

export const wallClock = () => (performance.timeOrigin + performance.now()) / 1000;
export const pause = () => new Promise((r) => setTimeout(r, 3));

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
    const checkpoints = await reads.collection(CHECKPOINTS).find({});
    const passed = checkpoints.length > 0 && checkpoints.every((c) => (c.position as number) >= head);
    if (passed && (await events.head()).position === head) return;
    if (Date.now() > deadline) throw new Error(`the projector did not pass position ${head} in 20 s`);
    await new Promise((r) => setTimeout(r, 4));
  }
}

export async function answer(t: TestApp, path: string): Promise<Answer> {
  const res = await t.http.get(path);
  return { path, status: res.status, body: res.type === 'text/csv' ? res.text : res.body };
}

export const withAt = (path: string, at: number) => `${path}${path.includes('?') ? '&' : '?'}at=${at}`;

/** Links name the query asked (with its `at`): the rest of a page must be equal. */
function comparable(body: unknown): unknown {
  if (body && typeof body === 'object' && !Array.isArray(body) && '_links' in body) {
    const { _links: _l, ...rest } = body as Record<string, unknown>;
    return rest;
  }
  return body;
}

/** After the history: every read, asked `?at=` each captured instant, answers what the live read answered then. */
export async function assertSameAsThen(t: TestApp, seen: { at: number; answers: Answer[] }[]): Promise<void> {
  for (const { at, answers } of seen) {
    for (const live of answers) {
      const past = await answer(t, withAt(live.path, at));
      assert.equal(past.status, live.status, `${live.path} at ${at}: ${JSON.stringify(past.body)}`);
      assert.deepEqual(comparable(past.body), comparable(live.body), `${live.path} at ${at}`);
    }
  }
}
