import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SqliteEventStore, type EventMetadata } from '#des/event-store';
import { type Doc, MemoryReadStore } from '#des/read-store';
import { inSources, type Projection } from './projection';
import { Projector } from './projector';

/** One event of a projection spec's history: on `stream`, recorded `at` (UNIX seconds; default 1, 2, 3 …). */
export interface GivenEvent {
  stream: string;
  type: string;
  data: Record<string, unknown>;
  /** Default: the organization the stream names (`<aggregate>-<org>/…`). */
  org?: string;
  at?: number;
}

/** A document as a spec expects it: its id, and the fields it must have (others are ignored). */
export type ExpectedDoc = { _id: string } & Record<string, unknown>;

const orgOf = (stream: string) => stream.slice(stream.indexOf('-') + 1).split('/')[0];

/**
 * Given events / then documents, for projections (the decider specs' twin):
 * the history is appended to an in-memory log with the recorded times given,
 * the projections rebuild the read models from it (the projector's own path,
 * in batches of one and of many), and each collection named is compared. The
 * documents must also come from the streams the projections declare as their
 * `sources` alone (what a read at a past instant folds).
 *
 *   await projectionSpec(flowsProjection)
 *     .given({ stream: 'flow-acme/shop', type: 'flow_created', data: {...} })
 *     .then('flows', [{ _id: 'acme/shop', name: 'shop', created_at: 1 }]);
 */
export function projectionSpec(...projections: Projection[]) {
  return {
    given(...history: GivenEvent[]) {
      return {
        /**
         * The documents the collection holds, in `_id` order, each with at least the fields
         * expected; answers them whole (as the last run made them) for further checks.
         */
        async then(collection: string, expected: ExpectedDoc[]): Promise<Doc[]> {
          let docs: Doc[] = [];
          const runs: [string, GivenEvent[], number][] = [
            ['batches of 1', history, 1],
            ['batches of 500', history, 500],
          ];
          const sourced = fromSources(projections, history);
          if (sourced) runs.push(['from the declared sources only', sourced, 500]);
          for (const [run, events, batchSize] of runs) {
            docs = await project(projections, events, batchSize, collection);
            assert.deepEqual(
              docs.map((d) => d._id),
              expected.map((d) => d._id),
              `${collection}: the documents (${run})`,
            );
            docs.forEach((doc, i) => {
              const picked = Object.fromEntries(Object.keys(expected[i]).map((k) => [k, doc[k]]));
              assert.deepEqual(picked, expected[i], `${collection} ${doc._id} (${run})`);
            });
          }
          return docs;
        },
      };
    },
  };
}

/** The history's events in the streams the projections declare for its organizations; none when one declares none. */
function fromSources(projections: Projection[], history: GivenEvent[]): GivenEvent[] | undefined {
  if (projections.some((p) => !p.sources)) return undefined;
  const orgs = new Set(history.map((e) => e.org ?? orgOf(e.stream)));
  const sources = [...orgs].flatMap((org) => projections.map((p) => p.sources!(org)));
  // Each keeps the instant it has in the whole history.
  return history
    .map((e, i) => ({ ...e, at: e.at ?? i + 1 }))
    .filter((e) => sources.some((s) => inSources(s, e.stream)));
}

async function project(
  projections: Projection[],
  history: GivenEvent[],
  batchSize: number,
  collection: string,
): Promise<Doc[]> {
  let clock = 0;
  const store = new SqliteEventStore({ path: ':memory:', clock: () => clock });
  try {
    for (const [i, e] of history.entries()) {
      clock = (e.at ?? i + 1) * 1_000_000;
      const metadata: EventMetadata = {
        org: e.org ?? orgOf(e.stream),
        actor: { kind: 'user', name: 'spec' },
      };
      await store.append(e.stream, [{ id: randomUUID(), type: e.type, data: e.data, metadata }], 'any');
    }
    const reads = new MemoryReadStore();
    await new Projector(store, reads, projections, { batchSize }).rebuild();
    return await reads.collection(collection).find({}, { sort: { _id: 1 } });
  } finally {
    await store.close();
  }
}
