/** What `#des/jobs` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { BullMqJobs } from './bullmq-jobs';
export { InProcessJobs } from './in-process-jobs';
export { DeferTo, type JobContext, type JobInfo, type JobOptions, type Jobs } from './jobs.port';
