import { after } from 'node:test';
import { jobsContract } from '../../libs/jobs/src/jobs.contract';
import { BullMqJobs, InProcessJobs } from '../../libs/jobs/src';
import { Engine, redisEngine, uniqueName } from '../support/engines';

jobsContract('in-process', async () => new InProcessJobs());

let engine: Engine | undefined;
jobsContract('BullMQ on Redis', async () => {
  engine = await redisEngine();
  console.log(`# jobs contract runs against ${engine.description}`);
  return new BullMqJobs({ url: engine.url, prefix: uniqueName('contract') });
});
after(async () => engine?.stop());
