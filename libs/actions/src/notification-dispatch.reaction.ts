import type { ActionsConfig, ReactionFactory } from '#des/platform';
import type { JobOptions } from '#des/jobs';
import type { Reaction } from '#des/projections';

export const NOTIFICATIONS_QUEUE = 'notifications';

export interface DeliveryJob {
  org: string;
  id: string;
  round: number;
}

/** One job per delivery round: the id derives from them, so a replay enqueues nothing twice. */
export function deliveryJob(
  job: DeliveryJob,
  config: ActionsConfig,
): [string, string, DeliveryJob, JobOptions & { jobId: string }] {
  return [
    NOTIFICATIONS_QUEUE,
    'deliver',
    job,
    {
      jobId: `${job.id}-r${job.round}`,
      attempts: config.attempts,
      backoffMs: config.backoffMs,
      jitter: 0.5,
      group: job.org,
    },
  ];
}

/** Enqueues the delivery of each scheduled notification, and of each redelivery of a dead letter. */
export const notificationDispatch: ReactionFactory = (config): Reaction => ({
  name: 'notification-dispatch',
  // Enqueued straight from the log: the delivery's job reads its stream, not the read models.
  needsReadModels: false,
  async react(event, _reads, effects) {
    if (!event.stream.startsWith('notification-')) return [];
    const org = event.metadata.org as string;
    const id = event.stream.slice(event.stream.indexOf('/') + 1);
    if (event.type === 'notification_scheduled') {
      await effects.enqueue(...deliveryJob({ org, id, round: 1 }, config.actions));
    } else if (event.type === 'notification_redelivery_requested') {
      const round = (event.data as { round: number }).round;
      await effects.enqueue(...deliveryJob({ org, id, round }, config.actions));
    }
    return [];
  },
});
