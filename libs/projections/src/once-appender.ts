import { type EventStore, WrongExpectedRevisionError } from '#des/event-store';
import type { ReactionOutput } from './reaction';

/** A reaction's append lost a race with another writer of its target stream this many times in a row: the batch fails (and is retried). */
const REACTION_APPEND_ATTEMPTS = 10;
/** Target streams whose revision and event ids are kept (least recently used dropped first). */
const STREAM_CACHE_SIZE = 5000;

/** What the projector knows of a stream a reaction appends to. */
interface KnownStream {
  /** Revision of its last event; -1: no stream. */
  revision: number;
  ids: Set<string>;
}

/** Appends reactions' fixed events to their target streams, each event once, however often a batch is replayed. */
export class OnceAppender {
  private readonly streams = new Map<string, KnownStream>();

  constructor(private readonly events: EventStore) {}

  /**
   * The stream's revision and the ids of its events. Cached per stream; a
   * load reads only the events after the cached revision (events are
   * immutable, so what was read stays right when others append).
   */
  private async loadStream(stream: string): Promise<KnownStream> {
    const cached = this.streams.get(stream);
    const from = cached ? cached.revision + 1 : 0;
    const newer = await this.events.readStream(stream, { fromRevision: from });
    const known = cached ?? { revision: -1, ids: new Set<string>() };
    for (const e of newer) known.ids.add(e.id);
    known.revision = from + newer.length - 1;
    this.streams.delete(stream);
    this.streams.set(stream, known);
    if (this.streams.size > STREAM_CACHE_SIZE) this.streams.delete(this.streams.keys().next().value!);
    return known;
  }

  /**
   * Appends a reaction's events that its target stream does not hold yet,
   * with the exact expected revision: KurrentDB de-duplicates event ids
   * reliably only then (with `any`, best effort), so a replay after a crash
   * must never rely on it. A lost race reloads the stream and tries again.
   */
  async appendOnce(output: ReactionOutput): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const known = await this.loadStream(output.stream);
      const fresh = output.events.filter((e) => !known.ids.has(e.id));
      if (fresh.length === 0) return;
      try {
        const appended = await this.events.append(
          output.stream,
          fresh,
          known.revision < 0 ? 'no_stream' : known.revision,
        );
        // Only if nobody else moved the stream meanwhile is the cache still complete.
        if (appended.nextRevision === known.revision + fresh.length) {
          for (const e of fresh) known.ids.add(e.id);
          known.revision = appended.nextRevision;
        }
        return;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= REACTION_APPEND_ATTEMPTS)
          throw error;
        await new Promise((r) => setTimeout(r, Math.random() * 5 * attempt));
      }
    }
  }
}
