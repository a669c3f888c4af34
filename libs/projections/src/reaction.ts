import { createHash } from 'node:crypto';
import type { EventToAppend, StoredEvent } from '#des/event-store';
import type { ProjectionReads } from './projection';

/** Events a reaction appends to one stream. */
export interface ReactionOutput {
  stream: string;
  events: EventToAppend[];
}

/**
 * A reaction turns an event into events on other streams (for example a
 * snapshot's `started` into `artifact_started_running` on the artifact's
 * trail). Its event ids must be derived from the source event (`derivedId`),
 * so a replay after a crash appends nothing twice.
 */
export interface Reaction {
  readonly name: string;
  react(event: StoredEvent, reads: ProjectionReads): Promise<ReactionOutput[]> | ReactionOutput[];
}

/** A stable UUID from the source event and a discriminator: replays produce the same id. */
export function derivedId(sourceEventId: string, discriminator: string): string {
  const h = createHash('sha256').update(`${sourceEventId}:${discriminator}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
