export * from './jobs.port';
export { InProcessJobs } from './in-process-jobs';
export { BullMqJobs } from './bullmq-jobs';
export { FairScheduler } from './fair-scheduler';
