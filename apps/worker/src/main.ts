import { runBackgroundProcess } from '../../../libs/platform/src/background-process';
import { EvaluationsModule } from '../../api/src/evaluations/evaluations.module';
import { allProjections, allReactions } from '../../api/src/projections';
import { WorkerModule } from './worker.module';

/** `npm run start:worker`: consumes the job queues (BullMQ in server mode). */
runBackgroundProcess('worker', { projections: allProjections, reactions: allReactions }, [
  EvaluationsModule,
  WorkerModule.register(),
]);
