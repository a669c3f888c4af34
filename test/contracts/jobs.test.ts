import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { StoreUnavailableError } from '#des/event-store';
import { jobsContract } from '#des/jobs/contract';
import { BullMqJobs, InProcessJobs } from '#des/jobs';
import { Engine, freePort, redisEngine, startRedis, uniqueName } from '../support/engines';
import { eventually } from '../support/processes';

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

  it('a worker started while Redis is down consumes once Redis is up', async () => {
    const port = await freePort();
    const jobs = new BullMqJobs({ url: `redis://127.0.0.1:${port}`, lockMs: 1000 });
    const seen: unknown[] = [];
    let redis: Engine | undefined;
    try {
      await jobs.work('late', async (job) => seen.push(job.data));
      await assert.rejects(jobs.enqueue('late', 'n', { n: 1 }), StoreUnavailableError);
      redis = await startRedis(port);
      // The producer reconnects on its own; until then enqueue keeps answering "unavailable".
      await eventually(
        () =>
          jobs.enqueue('late', 'n', { n: 2 }).then(
            () => true,
            () => false,
          ),
        (queued) => queued,
        15_000,
      );
      await eventually(
        async () => seen,
        (s) => s.length === 1,
        15_000,
      );
      assert.deepEqual(seen, [{ n: 2 }], 'only the accepted job ran');
    } finally {
      await jobs.close();
      await redis?.stop();
    }
  });
});
