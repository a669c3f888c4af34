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

/**
 * Events read back with the canonical text their data and metadata were
 * written as (by `canonicalJson`, in this process): their leaf text is built
 * from it, not serialized again. Canonical JSON parsed and serialized again
 * is the same text, so the leaf is the same either way.
 */
const writtenTexts = new WeakMap<object, { data: string; metadata: string }>();

/** Records the canonical text `event`'s data and metadata were written as. */
export function rememberWrittenText(event: object, data: string, metadata: string): void {
  writtenTexts.set(event, { data, metadata });
}

/** The same text from a stored event (its data and metadata as objects). */
export const canonicalTextOf = (event: {
  stream: string;
  type: string;
  data: unknown;
  metadata: unknown;
  recordedAt: number;
}): string => {
  const written = writtenTexts.get(event);
  // Named fields, not a spread: the data of an event read back lazily is not parsed for its text.
  if (written)
    return canonicalEventText({
      stream: event.stream,
      type: event.type,
      recordedAt: event.recordedAt,
      data: written.data,
      metadata: written.metadata,
    });
  return canonicalEventText({
    ...event,
    data: canonicalJson(event.data),
    metadata: canonicalJson(event.metadata),
  });
};
