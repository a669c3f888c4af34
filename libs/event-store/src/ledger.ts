import { createHash } from 'node:crypto';
import { configure } from 'safe-stable-stringify';
import type { EventStore, StoredEvent } from './event-store.port';

/** The hash before an organization's first event. */
export const GENESIS = '';

/** The chain an event belongs to: its organization's (events of no organization: the service's own). */
export const chainOf = (metadata: { org?: unknown }) =>
  typeof metadata.org === 'string' ? metadata.org : '';

// A cycle throws, as JSON.stringify's does, instead of being written as "[Circular]".
const stringify = configure({ circularValue: TypeError });

/** An event's data or metadata as the chain links it (and the log stores it): JSON with every object's keys sorted. */
export const canonicalJson = (value: unknown): string => stringify(value) ?? 'null';

/**
 * One link: SHA-256 of the previous hash ‖ the canonical JSON (keys sorted)
 * of the event's stream, type, data, metadata and recorded_at. Changing any
 * byte of a recorded event, or its order in its organization, breaks the chain.
 */
export function linkHash(
  previous: string,
  event: { stream: string; type: string; data: unknown; metadata: unknown; recordedAt: number },
): string {
  return linkHashOfCanonical(previous, {
    ...event,
    data: canonicalJson(event.data),
    metadata: canonicalJson(event.metadata),
  });
}

/**
 * The same link from data and metadata already in canonical JSON: the
 * canonical JSON of the whole is then their concatenation under the sorted
 * keys, so an append serializes its payload once (the text it stores).
 */
export function linkHashOfCanonical(
  previous: string,
  event: { stream: string; type: string; data: string; metadata: string; recordedAt: number },
): string {
  return createHash('sha256').update(previous).update(canonicalEventText(event)).digest('hex');
}

/**
 * An event as the chain and the transparency log's leaves hash it: the
 * canonical JSON (keys sorted) of its stream, type, data, metadata and
 * recorded_at, from data and metadata already canonical.
 */
export const canonicalEventText = (event: {
  stream: string;
  type: string;
  data: string;
  metadata: string;
  recordedAt: number;
}): string =>
  `{"data":${event.data},"metadata":${event.metadata},"recorded_at":${canonicalJson(event.recordedAt)},` +
  `"stream":${canonicalJson(event.stream)},"type":${canonicalJson(event.type)}}`;

/** The same text from a stored event (its data and metadata as objects). */
export const canonicalTextOf = (event: {
  stream: string;
  type: string;
  data: unknown;
  metadata: unknown;
  recordedAt: number;
}): string =>
  canonicalEventText({ ...event, data: canonicalJson(event.data), metadata: canonicalJson(event.metadata) });

export interface LedgerHead {
  org: string;
  /** Global position of the organization's last event (0: none yet). */
  position: number;
  recordedAt: number;
  hash: string;
}

export interface BrokenLink {
  position: number;
  stream: string;
  revision: number;
  type: string;
  stored: string;
  expected: string;
}

export interface ChainReport {
  org: string;
  events: number;
  head: { position: number; hash: string };
  /** The first event whose stored hash is not what the chain before it makes it. */
  broken?: BrokenLink;
}

/**
 * Walks the whole log in position order and recomputes every organization's
 * chain (or one organization's): each stored hash must be the link of the
 * one before it.
 */
export async function verifyLedger(
  store: EventStore,
  options: { org?: string; batchSize?: number; onProgress?: (events: number) => void } = {},
): Promise<{ chains: ChainReport[]; events: number }> {
  const chains = new Map<string, ChainReport & { last: string }>();
  let after = 0;
  let events = 0;
  for (;;) {
    const batch: StoredEvent[] = await store.readAll(after, options.batchSize ?? 5000);
    if (batch.length === 0) break;
    for (const e of batch) {
      events++;
      const org = chainOf(e.metadata);
      if (options.org !== undefined && org !== options.org) continue;
      let chain = chains.get(org);
      if (!chain) {
        chain = { org, events: 0, head: { position: 0, hash: GENESIS }, last: GENESIS };
        chains.set(org, chain);
      }
      const expected = linkHash(chain.last, e);
      chain.events++;
      if (!chain.broken && e.hash !== expected) {
        chain.broken = {
          position: e.position,
          stream: e.stream,
          revision: e.revision,
          type: e.type,
          stored: e.hash ?? '(none)',
          expected,
        };
      }
      // The walk goes on from what is stored, so one altered event is named, not every one after it.
      chain.last = e.hash ?? expected;
      chain.head = { position: e.position, hash: chain.last };
    }
    after = batch[batch.length - 1].position;
    options.onProgress?.(events);
  }
  return {
    chains: [...chains.values()]
      .map(({ last: _l, ...report }) => report)
      .sort((a, b) => a.org.localeCompare(b.org)),
    events,
  };
}
