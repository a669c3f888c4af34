import { QueueWorkersModule, runBackgroundProcess } from '#des/platform';
import {
  allProjections,
  allQueueConsumers,
  allReactions,
  allUpcasters,
  workerFeatureModules,
} from '#des/service';

/** `npm run start:worker`: consumes the job queues (BullMQ in server mode). */
runBackgroundProcess('worker', { projections: allProjections, reactions: allReactions, upcasters: allUpcasters }, [
  ...workerFeatureModules,
  QueueWorkersModule.register(allQueueConsumers),
]);
