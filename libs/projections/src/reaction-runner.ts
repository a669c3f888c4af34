import type { EventStore, StoredEvent, TimeSlice } from '#des/event-store';
import { LaneFailure, lanesByOrganization } from './batch-lanes';
import { OnceAppender } from './once-appender';
import type { ProjectionReads } from './projection';
import { attribute } from './projection-failure';
import type { Reaction, ReactionEffects } from './reaction';

/**
 * Runs reactions over a batch, in lanes: each organization's events go
 * through the reactions in order (reaction by reaction, each in log order),
 * organizations side by side, so one organization's slow reactions (a
 * fan-out of a hundred appends or enqueues) do not hold another's. Their
 * appends are idempotent by event id, their jobs by job id, their commands
 * decided against the stream: a batch retried after a failure repeats
 * nothing. The projector moves a reaction's checkpoint once every lane got
 * through it.
 */
export class ReactionRunner {
  /** Reactions that read no read model: they run before the batch's projections. */
  readonly before: Reaction[];
  /** Reactions that see the read models as of the end of the batch. */
  readonly after: Reaction[];
  /** Reactions' fixed events, appended once each. */
  private readonly appender: OnceAppender;
  private readonly effects: ReactionEffects;

  constructor(
    reactions: Reaction[],
    events: EventStore,
    effects: ReactionEffects | undefined,
    private readonly slice: TimeSlice,
  ) {
    this.before = reactions.filter((r) => r.needsReadModels === false);
    this.after = reactions.filter((r) => r.needsReadModels !== false);
    this.appender = new OnceAppender(events);
    this.effects = {
      execute: (command) => {
        if (!effects) throw new Error('this projector was given no command path for reactions');
        return effects.execute(command);
      },
      enqueue: (queue, name, data, options) => {
        if (!effects) throw new Error('this projector was given no job queue for reactions');
        return effects.enqueue(queue, name, data, options);
      },
    };
  }

  /**
   * The reactions every lane got through (a prefix of `reactions`), and the
   * earliest failure if a lane stopped. `doneUpTo` is a reaction's checkpoint
   * (by `reaction:<name>`): events up to it are not offered again.
   */
  async run(
    batch: StoredEvent[],
    reactions: Reaction[],
    reads: ProjectionReads,
    doneUpTo: (key: string) => number,
  ): Promise<{ through: Reaction[]; failure?: Error }> {
    const outcomes = await Promise.allSettled(
      [...lanesByOrganization(batch).values()].map((events) =>
        this.inLane(events, reactions, reads, doneUpTo),
      ),
    );
    let through = reactions.length;
    let failure: LaneFailure | undefined;
    for (const outcome of outcomes) {
      if (outcome.status === 'fulfilled') continue;
      const reason = outcome.reason as unknown;
      if (!(reason instanceof LaneFailure)) throw reason;
      through = Math.min(through, reason.through);
      if (!failure || reason.position < failure.position) failure = reason;
    }
    return { through: reactions.slice(0, through), failure: failure?.error };
  }

  /** One organization's events of a batch through the reactions, in order. */
  private async inLane(
    events: StoredEvent[],
    reactions: Reaction[],
    reads: ProjectionReads,
    doneUpTo: (key: string) => number,
  ): Promise<void> {
    for (const [index, reaction] of reactions.entries()) {
      const key = `reaction:${reaction.name}`;
      const done = doneUpTo(key);
      const superseded = supersededIn(events, reaction);
      for (const event of events) {
        if (event.position <= done || superseded.has(event)) continue;
        if (this.slice.due) await this.slice.turn();
        try {
          // Most reactions answer most events at once, with nothing: no await for those.
          const reacted = reaction.react(event, reads, this.effects);
          for (const output of Array.isArray(reacted) ? reacted : await reacted) {
            if (output.events.length) await this.appender.appendOnce(output);
          }
        } catch (error) {
          throw new LaneFailure(index, event.position, attribute(error, key, event.position));
        }
      }
    }
  }
}

/** The events of a lane a later event with the same key stands for (`Reaction.coalesceBy`). */
function supersededIn(events: StoredEvent[], reaction: Reaction): Set<StoredEvent> {
  const superseded = new Set<StoredEvent>();
  if (!reaction.coalesceBy || reaction.needsReadModels === false) return superseded;
  const last = new Map<string, StoredEvent>();
  for (const event of events) {
    const key = reaction.coalesceBy(event);
    if (key === undefined) continue;
    const before = last.get(key);
    if (before) superseded.add(before);
    last.set(key, event);
  }
  return superseded;
}
