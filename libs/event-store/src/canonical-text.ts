import { configure } from 'safe-stable-stringify';

/** The organization whose tree an event is a leaf of ('': none, the service's own events). */
export const orgOf = (metadata: { org?: unknown }) => (typeof metadata.org === 'string' ? metadata.org : '');

// A cycle throws, as JSON.stringify's does, instead of being written as "[Circular]".
const stringify = configure({ circularValue: TypeError });

/** An event's data or metadata as the log stores it (and its leaf hashes it): JSON with every object's keys sorted. */
export const canonicalJson = (value: unknown): string => stringify(value) ?? 'null';

/**
 * An event as the transparency log's leaves hash it: the
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
