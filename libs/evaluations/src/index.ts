export * from './evaluations.module';
export * from './evaluations.projection';
export * from './evaluation.decider';
export { EVALUATIONS_QUEUE, EVALUATION_ATTEMPTS, evaluationJob } from './evaluation.consumer';
export * from './evaluation.commands';
