/** What `#des/evaluations` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { EVALUATIONS_QUEUE, EVALUATION_ATTEMPTS } from './evaluation-job';
export { evaluationStream } from './evaluation.decider';
export { evaluationsFeature } from './evaluations.module';
export { ChangeEvaluation } from './evaluation.commands';
export {
  CANCELLED_BY_OPERATOR,
  cancellation,
  listEvaluationJobs,
  type EvaluationJobView,
} from './evaluation-jobs';
