import {
  WrongExpectedRevisionError,
  type EventStore,
  type Following,
  type StoredEvent,
} from '../../event-store/src/event-store.port';
import type { Doc, ReadStore } from '../../read-store/src/read-store.port';
import { PositionedWrite, applyAllOnce } from './guarded-write';
import { CHECKPOINTS, DocWrite, Projection, ProjectionReads, declareCollections } from './projection';
import { ProjectionProgress, PositionWaiters } from './progress';
import type { Reaction, ReactionOutput } from './reaction';

export interface ProjectorLogger {
  log(message: string): void;
  error(message: string, error?: unknown): void;
}

export interface ProjectorOptions {
  batchSize?: number;
  logger?: ProjectorLogger;
  /** Called after each document write lands, before the batch's checkpoint: the crash test's hook. */
  afterWrite?: (write: DocWrite) => void;
  /** Most writes sent to the read store in one round trip (default 100). */
  flushSize?: number;
  /** Reactions run after each batch's projections, with checkpoints of their own. */
  reactions?: Reaction[];
}

interface Checkpoint extends Doc {
  position: number;
}

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

/**
 * Runs projections over the log: catch up, then follow live. Checkpoints are
 * saved after each batch; document position guards make a replay after a
 * crash harmless.
 */
export class Projector implements ProjectionProgress {
  private readonly checkpoints = new Map<string, number>();
  private readonly waiters = new PositionWaiters();
  private following?: Following;
  private readonly reads: ProjectionReads;
  private readonly batchSize: number;

  constructor(
    private readonly events: EventStore,
    private readonly store: ReadStore,
    private readonly projections: Projection[],
    private readonly options: ProjectorOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 500;
    // A projection that reads sees every write before it: pending writes are flushed first.
    this.reads = {
      get: async (collection, id) => {
        await this.flush();
        return this.store.collection(collection).findOne({ _id: id }) as never;
      },
      find: async (collection, filter) => {
        await this.flush();
        return this.store.collection(collection).find(filter) as never;
      },
    };
  }

  private names(): string[] {
    return [
      ...this.projections.map((p) => p.name),
      ...(this.options.reactions ?? []).map((r) => `reaction:${r.name}`),
    ];
  }

  /** The lowest position every projection has applied. */
  get position(): number {
    return this.waiters.position;
  }

  async start(): Promise<void> {
    await declareCollections(this.store, this.projections);
    const saved = await this.store.collection<Checkpoint>(CHECKPOINTS).find({});
    for (const name of this.names()) {
      this.checkpoints.set(name, saved.find((c) => c._id === name)?.position ?? 0);
    }
    const from = Math.min(...this.checkpoints.values(), Number.MAX_SAFE_INTEGER);
    this.waiters.advance(from === Number.MAX_SAFE_INTEGER ? 0 : from);
    this.following = this.events.follow(this.waiters.position, (batch) => this.apply(batch), {
      batchSize: this.batchSize,
      onError: (error) => this.options.logger?.error('projector batch failed; retrying', error),
    });
  }

  /** Resolves once every event appended before the call is applied. */
  async catchUp(timeoutMs = 60_000): Promise<void> {
    const head = await this.events.head();
    if (!(await this.waitFor(head.position, timeoutMs))) {
      throw new Error(`projector did not reach position ${head.position} within ${timeoutMs} ms`);
    }
  }

  waitFor(position: number, timeoutMs: number): Promise<boolean> {
    return this.waiters.waitFor(position, timeoutMs);
  }

  async stop(): Promise<void> {
    await this.following?.stop();
    this.following = undefined;
    this.waiters.cancelAll();
  }

  /** Drops every read model and replays the whole log into it. */
  async rebuild(onProgress?: (done: number, total: number) => void): Promise<number> {
    const running = this.following !== undefined;
    await this.stop();
    for (const p of this.projections) {
      for (const c of p.collections) await this.store.dropCollection(c.name);
    }
    await this.store
      .collection(CHECKPOINTS)
      .deleteMany({ _id: { $in: this.projections.map((p) => p.name) } });
    this.checkpoints.clear();
    for (const p of this.projections) this.checkpoints.set(p.name, 0);
    // Reactions keep their checkpoints: what they appended is in the log already.
    this.waiters.reset();
    await declareCollections(this.store, this.projections);
    const head = await this.events.head();
    let after = 0;
    let done = 0;
    for (;;) {
      const batch = await this.events.readAll(after, this.batchSize);
      if (batch.length === 0 || batch[0].position > head.position) break;
      await this.project(batch); // reactions are not re-run: their events are in the log already
      after = batch[batch.length - 1].position;
      done += batch.length;
      onProgress?.(done, done);
    }
    if (running) await this.start();
    return done;
  }

  private pending: PositionedWrite[] = [];

  /** Sends pending writes, collection by collection in order, in bulk. */
  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const chunk = this.pending.splice(0, this.options.flushSize ?? 100);
      const byCollection = new Map<string, PositionedWrite[]>();
      for (const w of chunk) {
        const list = byCollection.get(w.write.collection) ?? [];
        list.push(w);
        byCollection.set(w.write.collection, list);
      }
      for (const [collection, writes] of byCollection) {
        await applyAllOnce(this.store, collection, writes);
        for (const w of writes) this.options.afterWrite?.(w.write);
      }
    }
  }

  private async apply(batch: StoredEvent[]): Promise<void> {
    await this.project(batch);
    await this.react(batch);
  }

  /** Reactions see the read models as of the end of the batch; their appends are idempotent by event id. */
  private async react(batch: StoredEvent[]): Promise<void> {
    const reactions = this.options.reactions ?? [];
    if (reactions.length === 0) return;
    const last = batch[batch.length - 1].position;
    const checkpoints = this.store.collection<Checkpoint>(CHECKPOINTS);
    for (const reaction of reactions) {
      const key = `reaction:${reaction.name}`;
      const done = this.checkpoints.get(key) ?? 0;
      for (const event of batch) {
        if (event.position <= done) continue;
        for (const output of await reaction.react(event, this.reads)) {
          if (output.events.length) await this.appendOnce(output);
        }
      }
      if (done < last) {
        await checkpoints.updateOne({ _id: key }, { $max: { position: last } }, { upsert: true });
        this.checkpoints.set(key, last);
      }
    }
  }

  private readonly streams = new Map<string, KnownStream>();

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
  private async appendOnce(output: ReactionOutput): Promise<void> {
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
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= REACTION_APPEND_ATTEMPTS) throw error;
        await new Promise((r) => setTimeout(r, Math.random() * 5 * attempt));
      }
    }
  }

  private async project(batch: StoredEvent[]): Promise<void> {
    try {
      for (const event of batch) {
        for (const projection of this.projections) {
          if ((this.checkpoints.get(projection.name) ?? 0) >= event.position) continue;
          for (const write of await projection.project(event, this.reads)) {
            this.pending.push({ write, position: event.position });
          }
        }
      }
      await this.flush();
    } finally {
      this.pending = [];
    }
    const last = batch[batch.length - 1].position;
    const checkpoints = this.store.collection<Checkpoint>(CHECKPOINTS);
    for (const projection of this.projections) {
      if ((this.checkpoints.get(projection.name) ?? 0) >= last) continue;
      await checkpoints.updateOne({ _id: projection.name }, { $max: { position: last } }, { upsert: true });
      this.checkpoints.set(projection.name, last);
    }
    this.waiters.advance(last);
  }
}
