import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { StoreUnavailableError } from '../../libs/event-store/src';
import { jobsContract } from '../../libs/jobs/src/jobs.contract';
import { BullMqJobs, InProcessJobs } from '../../libs/jobs/src';
import { Engine, freePort, redisEngine, uniqueName } from '../support/engines';

jobsContract('in-process', async () => new InProcessJobs());

let engine: Engine | undefined;
jobsContract('BullMQ on Redis', async () => {
  engine = await redisEngine();
  console.log(`# jobs contract runs against ${engine.description}`);
  return new BullMqJobs({ url: engine.url, prefix: uniqueName('contract') });
});
after(async () => engine?.stop());

describe('BullMQ with Redis unreachable', () => {
  it('fails an enqueue at once with StoreUnavailableError, and still starts and stops a worker', async () => {
    // A short lock: BullMQ's stalled checker may sleep one interval past close() when Redis never answered.
    const jobs = new BullMqJobs({
      url: `redis://127.0.0.1:${await freePort()}`,
      timeoutMs: 60_000,
      lockMs: 1000,
    });
    try {
      await jobs.work('q', async () => 'never');
      // The refused connection is the answer; the enqueue does not sit out its timeout.
      await assert.rejects(
        jobs.enqueue('q', 'n', {}),
        (e) => e instanceof StoreUnavailableError && /ECONNREFUSED/.test(e.message),
      );
      await assert.rejects(jobs.ping(), StoreUnavailableError);
    } finally {
      await jobs.close();
    }
  });
});
