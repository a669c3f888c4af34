import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { EventMetadata } from '#des/event-store';
import { CommandExecutor, Executed, ExecuteOptions } from './command-executor';
import type { Decider, DomainEvent } from '#des/kernel';

/**
 * A write to one aggregate as the command bus carries it: the stream, the
 * aggregate's decider, the decider's command and who asks (the events'
 * metadata). A feature declares one subclass per aggregate, whose constructor
 * names the stream from the aggregate's identity, and dispatches it with
 * `CommandBus.execute(new ChangeFlow(…))`.
 */
export abstract class AggregateCommand<C, S, E extends DomainEvent> extends Command<Executed<S, E>> {
  constructor(
    readonly stream: string,
    readonly decider: Decider<C, S, E>,
    readonly command: C,
    readonly metadata: EventMetadata,
    readonly options: ExecuteOptions = {},
  ) {
    super();
  }
}

/**
 * The one handler of every `AggregateCommand` subclass (the bus finds it
 * through the base class), thin by design: `CommandExecutor` loads and folds
 * the stream, decides, appends with the expected revision, retries a
 * conflict and waits for the read models. A command with application logic
 * of its own declares its own `@CommandHandler` instead.
 */
@CommandHandler(AggregateCommand)
export class AggregateCommandHandler implements ICommandHandler<
  AggregateCommand<unknown, unknown, DomainEvent>
> {
  constructor(private readonly executor: CommandExecutor) {}

  execute<C, S, E extends DomainEvent>(c: AggregateCommand<C, S, E>): Promise<Executed<S, E>> {
    return this.executor.execute(c.stream, c.decider, c.command, c.metadata, c.options);
  }
}
