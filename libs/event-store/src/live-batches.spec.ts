import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { LiveBatches } from './live-batches';

const source = () => new PassThrough({ objectMode: true });
const number = (item: unknown) => item as number;

/** Lets queued stream events ('data' is emitted on a later tick) run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('LiveBatches', () => {
  it('hands the consumer what arrived while it was busy, at most max at a time, in order', async () => {
    const live = source();
    const batches = new LiveBatches(live, number, 3);
    const seen: number[][] = [];
    let release!: () => void;
    const busy = new Promise<void>((resolve) => (release = resolve));
    const consumed = (async () => {
      for await (const batch of batches) {
        seen.push(batch);
        if (batch.includes(1)) await busy; // the consumer is slow with the first batch
        if (batch.includes(8)) return;
      }
    })();
    live.write(1);
    await settle();
    for (let i = 2; i <= 8; i++) live.write(i);
    await settle();
    release();
    await consumed;
    assert.deepEqual(seen, [[1], [2, 3, 4], [5, 6, 7], [8]]);
    batches.close();
  });

  it('pauses the source past the high-water mark and resumes it once drained', async () => {
    const live = source();
    const batches = new LiveBatches(live, number, 2, 4);
    for (let i = 1; i <= 4; i++) live.write(i);
    await settle();
    assert.equal(live.isPaused(), true, 'paused with 4 buffered');
    const iterator = batches[Symbol.asyncIterator]();
    assert.deepEqual((await iterator.next()).value, [1, 2]);
    assert.equal(live.isPaused(), false, 'resumed below the mark');
    assert.deepEqual((await iterator.next()).value, [3, 4]);
    batches.close();
    assert.equal((await iterator.next()).done, true);
  });

  it('delivers what came before a failure, then throws, and never what came after it', async () => {
    const live = source();
    const batches = new LiveBatches(
      live,
      (item) => {
        if (item === 'bad') throw new Error('cannot convert');
        return item as string;
      },
      10,
    );
    live.write('a');
    live.write('b');
    live.write('bad');
    live.write('c');
    await settle();
    const iterator = batches[Symbol.asyncIterator]();
    assert.deepEqual((await iterator.next()).value, ['a', 'b']);
    await assert.rejects(iterator.next(), /cannot convert/);
  });

  it('ends after the buffered items when the source ends', async () => {
    const live = source();
    const batches = new LiveBatches(live, number, 10);
    live.write(1);
    live.end();
    const seen: number[][] = [];
    for await (const batch of batches) seen.push(batch);
    assert.deepEqual(seen, [[1]]);
  });
});
