import { DomainError } from '#des/kernel';
import type { Config } from '#des/platform';
import { ChangeDelivery, deliveryDecider, deliveryStream } from '#des/actions';
import { withLog } from './with-log';

/**
 * `actions redeliver <org> <number> <delivery>`: sends a dead-lettered
 * notification again. The command is recorded in the log; the running
 * service's projector enqueues the new round and its workers send it.
 */
export async function redeliver(
  config: Config,
  org: string,
  number: number,
  delivery: string,
): Promise<void> {
  try {
    await withLog(config, async (_events, executor) => {
      const { state } = await executor.load(deliveryStream(org, delivery), deliveryDecider);
      if (!state.scheduled || state.scheduled.action !== number)
        throw new Error(`action ${number} of '${org}' has no delivery ${delivery}`);
      const command = new ChangeDelivery(
        org,
        { kind: 'redeliver', id: delivery },
        { org, actor: { kind: 'system', name: 'cli' } },
        { awaitReadModels: false },
      );
      const done = await executor.execute(
        command.stream,
        command.decider,
        command.command,
        command.metadata,
        command.options,
      );
      const round = done.state.round;
      console.log(`Delivery ${delivery} of action ${number} will be sent again (round ${round}).`);
    });
  } catch (error) {
    if (error instanceof DomainError) {
      const detail = Object.values(error.errors ?? {}).join('; ');
      throw new Error(detail ? `${error.message}: ${detail}` : error.message);
    }
    throw error;
  }
}
