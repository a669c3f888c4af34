import { createHash } from 'node:crypto';
import type { EventToAppend, StoredEvent } from '#des/event-store';
import type { ProjectionReads } from './projection';

/** Events a reaction appends to one stream. */
export interface ReactionOutput {
  stream: string;
  events: EventToAppend[];
}

/**
 * The command path, for a reaction whose outcome depends on an aggregate's
 * state: the command is decided against the stream as it is (load, decide,
 * append with the expected revision), never waiting for the read models (the
 * projector that would serve that wait is the caller).
 */
export interface ReactionCommands {
  execute(command: object): Promise<unknown>;
}

/**
 * A reaction turns an event into events on other streams, in one of two ways:
 * - outputs: fixed events (for example a snapshot's `started` becomes
 *   `artifact_started_running` on the artifact's trail) whose ids are derived
 *   from the source event (`derivedId`), so a replay appends nothing twice;
 * - commands, through `commands`: their decider sees the stream's state, so a
 *   replay decides again and appends only what is not so already.
 */
export interface Reaction {
  readonly name: string;
  react(
    event: StoredEvent,
    reads: ProjectionReads,
    commands: ReactionCommands,
  ): Promise<ReactionOutput[]> | ReactionOutput[];
}

/** A stable UUID from the source event and a discriminator: replays produce the same id. */
export function derivedId(sourceEventId: string, discriminator: string): string {
  const h = createHash('sha256').update(`${sourceEventId}:${discriminator}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
