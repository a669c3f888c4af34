import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { DeferTo, JobContext, Jobs, RetryAt } from './jobs.port';

async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not met in time; last value ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The one contract every jobs adapter passes. */
export function jobsContract(name: string, open: () => Promise<Jobs>): void {
  describe(`jobs contract: ${name}`, () => {
    let jobs: Jobs;
    before(async () => {
      jobs = await open();
    });
    after(async () => {
      await jobs.close();
    });
    const queueName = () => `q-${randomUUID().slice(0, 8)}`;

    it('runs a job and keeps its result', async () => {
      const q = queueName();
      await jobs.work(q, async (job) => ({ doubled: (job.data as { n: number }).n * 2 }));
      const id = await jobs.enqueue(q, 'double', { n: 21 });
      const info = await eventually(
        () => jobs.get(q, id),
        (j) => j?.state === 'completed',
      );
      assert.deepEqual(info!.result, { doubled: 42 });
      assert.equal(info!.name, 'double');
      assert.deepEqual(info!.data, { n: 21 });
    });

    it('retries a failing job with exponential back-off until it succeeds', async () => {
      const q = queueName();
      const runs: { attempt: number; at: number }[] = [];
      await jobs.work(q, async (job) => {
        runs.push({ attempt: job.attempt, at: Date.now() });
        if (job.attempt < 3) throw new Error(`flaky ${job.attempt}`);
        return 'ok';
      });
      const id = await jobs.enqueue(q, 'flaky', {}, { attempts: 4, backoffMs: 50 });
      const info = await eventually(
        () => jobs.get(q, id),
        (j) => j?.state === 'completed',
      );
      assert.equal(info!.result, 'ok');
      assert.deepEqual(
        runs.map((r) => r.attempt),
        [1, 2, 3],
      );
      assert.ok(runs[1].at - runs[0].at >= 45, 'first retry waits the base delay');
      assert.ok(runs[2].at - runs[1].at >= 95, 'second retry waits twice as long');
    });

    it('dead-letters a job that used up its attempts', async () => {
      const q = queueName();
      let calls = 0;
      await jobs.work(q, async () => {
        calls++;
        throw new Error('always broken');
      });
      const id = await jobs.enqueue(q, 'broken', { x: 1 }, { attempts: 2, backoffMs: 10 });
      const info = await eventually(
        () => jobs.get(q, id),
        (j) => j?.state === 'failed',
      );
      assert.equal(info!.failedReason, 'always broken');
      assert.equal(info!.attemptsMade, 2);
      assert.equal(calls, 2);
      assert.deepEqual(
        (await jobs.failed(q)).map((j) => j.id),
        [id],
      );
    });

    it('reports a job it gives up to the dead-letter hook, once, and no job that succeeds', async () => {
      const q = queueName();
      const given: string[] = [];
      await jobs.work(
        q,
        async (job) => {
          if ((job.data as { ok: boolean }).ok) return 'fine';
          throw new Error('always broken');
        },
        { onDeadLetter: async (job) => void given.push(`${job.id}:${job.state}:${job.failedReason}`) },
      );
      const fine = await jobs.enqueue(q, 'fine', { ok: true });
      const broken = await jobs.enqueue(q, 'broken', { ok: false }, { attempts: 2, backoffMs: 10 });
      await eventually(
        async () => given.length,
        (n) => n >= 1,
      );
      const marker = await jobs.enqueue(q, 'marker', { ok: true });
      await eventually(
        () => jobs.get(q, marker),
        (j) => j?.state === 'completed',
      );
      assert.equal((await jobs.get(q, fine))?.state, 'completed');
      assert.deepEqual(given, [`${broken}:failed:always broken`]);
    });

    it('deduplicates by job id, while the job waits, runs and after it ran', async () => {
      const q = queueName();
      const runs: string[] = [];
      const gates: (() => void)[] = [];
      const id = `job-${randomUUID()}`;
      assert.equal(await jobs.enqueue(q, 'once', {}, { jobId: id }), id);
      assert.equal(await jobs.enqueue(q, 'once', {}, { jobId: id }), id, 'while it waits');
      await jobs.work(q, async (job) => {
        runs.push(job.id);
        if (job.id === id) await new Promise<void>((r) => gates.push(r));
      });
      await eventually(
        async () => gates.length,
        (n) => n === 1,
      );
      await jobs.enqueue(q, 'once', {}, { jobId: id }); // while it runs
      gates.shift()!();
      await eventually(
        () => jobs.get(q, id),
        (j) => j?.state === 'completed',
      );
      await jobs.enqueue(q, 'once', {}, { jobId: id }); // after it ran
      // A marker enqueued last runs after anything enqueued before it (one at a time, in order).
      const marker = await jobs.enqueue(q, 'marker', {});
      await eventually(
        () => jobs.get(q, marker),
        (j) => j?.state === 'completed',
      );
      assert.deepEqual(runs, [id, marker]);
    });

    it('runs up to `concurrency` jobs at once', async () => {
      const q = queueName();
      let active = 0;
      let peak = 0;
      const done: string[] = [];
      const gates: (() => void)[] = [];
      await jobs.work(
        q,
        async (job: JobContext) => {
          active++;
          peak = Math.max(peak, active);
          await new Promise<void>((r) => gates.push(r)); // held until the test lets it finish
          active--;
          done.push(job.id);
        },
        { concurrency: 2 },
      );
      for (let i = 0; i < 5; i++) await jobs.enqueue(q, 'slow', { i });
      // Let one finish at a time, each time once the free slot is taken again (or nothing is left).
      while (done.length < 5) {
        await eventually(
          async () => gates.length,
          (n) => n >= Math.min(2, 5 - done.length),
        );
        const finished = done.length;
        gates.shift()!();
        await eventually(
          async () => done.length,
          (n) => n > finished,
        );
      }
      assert.equal(peak, 2);
    });

    it('runs each group at most at its cap, and a group with many jobs does not delay another beyond its turn', async () => {
      const q = queueName();
      const running = new Map<string, number>();
      const peak = new Map<string, number>();
      const started: string[] = [];
      const gates: (() => void)[] = [];
      await jobs.work(
        q,
        async (job) => {
          const { group } = job.data as { group: string };
          running.set(group, (running.get(group) ?? 0) + 1);
          peak.set(group, Math.max(peak.get(group) ?? 0, running.get(group)!));
          started.push(group);
          await new Promise<void>((r) => gates.push(r));
          running.set(group, running.get(group)! - 1);
        },
        { concurrency: 3, groupConcurrency: async (group) => (group === 'a' ? 2 : 1) },
      );
      for (let i = 0; i < 20; i++) await jobs.enqueue(q, 'a', { group: 'a', i }, { group: 'a' });
      await eventually(
        async () => started.length,
        (n) => n === 2,
      );
      // A has 18 more waiting; B's one job takes the slot A may not use, at once.
      await jobs.enqueue(q, 'b', { group: 'b' }, { group: 'b' });
      await eventually(
        async () => started.includes('b'),
        (yes) => yes,
      );
      assert.deepEqual(started.slice(0, 3), ['a', 'a', 'b']);
      // C, arriving later, starts after at most as many more of A's as A may run at once (its turn).
      await jobs.enqueue(q, 'c', { group: 'c' }, { group: 'c' });
      const before = started.length;
      while (!started.includes('c')) {
        const count = started.length;
        gates.shift()!();
        await eventually(
          async () => started.length,
          (n) => n > count,
        );
      }
      const aFirst = started.slice(before, started.indexOf('c')).length;
      assert.ok(aFirst <= 2, `C waited for ${aFirst} more of A's: ${started.join(',')}`);
      await eventually(
        async () => {
          gates.splice(0).forEach((open) => open());
          return started.length;
        },
        (n) => n === 22,
        20_000,
      );
      assert.equal(peak.get('a'), 2, 'A never runs more than its cap');
      assert.equal(peak.get('b'), 1);
      assert.equal(peak.get('c'), 1);
    });

    it('retries at the time a RetryAt names, counting the attempt, and dead-letters after the last', async () => {
      const q = queueName();
      const runs: number[] = [];
      await jobs.work(q, async (job) => {
        runs.push(Date.now());
        throw new RetryAt(Date.now() + 300, `not before ${job.attempt}`);
      });
      const id = await jobs.enqueue(q, 'later', {}, { attempts: 2, backoffMs: 1 });
      const info = await eventually(
        () => jobs.get(q, id),
        (j) => j?.state === 'failed',
      );
      assert.equal(info!.attemptsMade, 2);
      assert.equal(runs.length, 2);
      assert.ok(runs[1] - runs[0] >= 290, `retried after ${runs[1] - runs[0]} ms, not at the time named`);
    });

    it('runs a deferred job again at the time a DeferTo names, counting no attempt', async () => {
      const q = queueName();
      const runs: { at: number; attempt: number; enqueuedAt: number }[] = [];
      await jobs.work(q, async (job) => {
        runs.push({ at: Date.now(), attempt: job.attempt, enqueuedAt: job.enqueuedAt });
        if (runs.length < 3) throw new DeferTo(Date.now() + 200, 'not yet');
        return 'done';
      });
      const before = Date.now();
      const id = await jobs.enqueue(q, 'deferred', {}, { attempts: 1, backoffMs: 1 });
      const info = await eventually(
        () => jobs.get(q, id),
        (j) => j?.state === 'completed',
      );
      assert.equal(info!.result, 'done', 'deferrals spent none of its single attempt');
      assert.deepEqual(
        runs.map((r) => r.attempt),
        [1, 1, 1],
      );
      assert.ok(
        runs[1].at - runs[0].at >= 190,
        `ran again after ${runs[1].at - runs[0].at} ms, not at the time named`,
      );
      assert.ok(
        runs.every((r) => r.enqueuedAt === runs[0].enqueuedAt && Math.abs(r.enqueuedAt - before) < 5_000),
      );
    });

    it('answers an unknown job id with undefined', async () => {
      assert.equal(await jobs.get(queueName(), 'nope'), undefined);
    });
  });
}
