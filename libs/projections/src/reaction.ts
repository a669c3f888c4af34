import { createHash } from 'node:crypto';
import type { EventMetadata, EventToAppend, StoredEvent } from '#des/event-store';
import type { JobOptions } from '#des/jobs';
import type { ProjectionReads } from './projection';

/** Events a reaction appends to one stream. */
export interface ReactionOutput {
  stream: string;
  events: EventToAppend[];
}

/** What a reaction may do besides appending fixed events. */
export interface ReactionEffects {
  /**
   * The command path, for an outcome that depends on an aggregate's state:
   * the command is decided against the stream as it is (load, decide, append
   * with the expected revision), never waiting for the read models (the
   * projector that would serve that wait is the caller).
   */
  execute(command: object): Promise<unknown>;
  /** Enqueues a job; give it a job id derived from the event, so a replay enqueues nothing twice. */
  enqueue(
    queue: string,
    name: string,
    data: unknown,
    options: JobOptions & { jobId: string },
  ): Promise<string>;
}

/**
 * A reaction turns an event into events on other streams, in one of two ways:
 * - outputs: fixed events (for example a snapshot's `started` becomes
 *   `artifact_started_running` on the artifact's trail) whose ids are derived
 *   from the source event (`derivedId`), so a replay appends nothing twice;
 * - commands, through `effects.execute`: their decider sees the stream's
 *   state, so a replay decides again and appends only what is not so already.
 * It may also enqueue jobs (`effects.enqueue`) with ids derived from the event.
 */
export interface Reaction {
  readonly name: string;
  /**
   * False for a reaction that reads no read model (it gets all it needs from
   * the event): it runs before the batch's projections instead of after
   * them, so what it starts does not wait for the read-model writes.
   */
  readonly needsReadModels?: boolean;
  /**
   * For a reaction that reads the read models (which it sees as of the end of the batch): the
   * events of a batch with the same key would do the same work with the same reads, so only the
   * last of them in each organization's lane is reacted to. Undefined: every event is.
   */
  coalesceBy?(event: StoredEvent): string | undefined;
  react(
    event: StoredEvent,
    reads: ProjectionReads,
    effects: ReactionEffects,
  ): Promise<ReactionOutput[]> | ReactionOutput[];
}

/** A stable UUID from the source event and a discriminator: replays produce the same id. */
export function derivedId(sourceEventId: string, discriminator: string): string {
  const h = createHash('sha256').update(`${sourceEventId}:${discriminator}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Metadata of what a reaction records: the source's organization and correlation, caused by the source, by the system. */
export function reactionMetadata(source: StoredEvent, reaction: string): EventMetadata {
  return {
    org: source.metadata.org,
    actor: { kind: 'system', name: reaction },
    causation_id: source.id,
    correlation_id: source.metadata.correlation_id,
  };
}
