import type { Type } from '@nestjs/common';
import type { Upcaster } from '#des/event-store';
import type { Projection, Reaction } from '#des/projections';
import type { QueueConsumer } from './queue-workers.module';
import type { Config } from './config';

/** A reaction that needs the service's configuration, built once per process. */
export type ReactionFactory = (config: Config) => Reaction;

/**
 * What a feature library contributes to the service: its Nest module
 * (controllers, command handlers, providers) and what the background roles
 * run for it. `libs/service` lists every feature once; the processes take
 * what their role needs from that list.
 */
export interface ServiceFeature {
  module: Type;
  /** Read models, applied by the projector and rebuilt by the CLI. */
  projections?: Projection[];
  /** Reactions over the log, run by the projector after each batch. */
  reactions?: (Reaction | ReactionFactory)[];
  /** Queue consumers (providers of `module`) that the worker role starts. */
  queueConsumers?: Type<QueueConsumer>[];
  /** How its events written at an older schema read today (ADR 0016). */
  upcasters?: Upcaster[];
}
