import { runBackgroundProcess } from '../../../libs/platform/src/background-process';
import { allProjections, allReactions } from '../../api/src/projections';
import { WorkerModule } from './worker.module';

/** `npm run start:worker`: consumes the job queues (BullMQ in server mode). */
runBackgroundProcess('worker', { projections: allProjections, reactions: allReactions }, [
  WorkerModule.register(),
]);
