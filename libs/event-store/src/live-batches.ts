import type { Readable } from 'node:stream';

/** What LiveBatches needs of a live source: a Readable in object mode (a KurrentDB subscription is one). */
export type LiveSource = Pick<Readable, 'on' | 'off' | 'pause' | 'resume' | 'isPaused'>;

/**
 * Batches from a live source that pushes one item at a time: each batch is what
 * arrived while the consumer was busy with the previous one, at most `max`
 * items, in arrival order. Past `highWater` buffered items the source is paused
 * (back-pressure reaches the server through the stream) and resumed once the
 * consumer has drained below it. Items after one that failed to convert are
 * never delivered: the iteration throws once the items before it are consumed.
 */
export class LiveBatches<T> implements AsyncIterable<T[]> {
  private readonly buffer: T[] = [];
  private failure: { error: unknown } | undefined;
  private ended = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly source: LiveSource,
    private readonly convert: (item: unknown) => T | undefined,
    private readonly max: number,
    private readonly highWater = Math.max(2 * max, 1),
  ) {
    source.on('data', this.onData);
    source.on('error', this.onError);
    source.on('end', this.onEnd);
    source.on('close', this.onEnd);
  }

  private readonly onData = (item: unknown): void => {
    if (this.failure || this.ended) return;
    try {
      const value = this.convert(item);
      if (value !== undefined) this.buffer.push(value);
    } catch (error) {
      this.failure = { error };
    }
    if (this.buffer.length >= this.highWater && !this.source.isPaused()) this.source.pause();
    this.notify();
  };

  private readonly onError = (error: Error): void => {
    this.failure ??= { error };
    this.notify();
  };

  private readonly onEnd = (): void => {
    this.ended = true;
    this.notify();
  };

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** Stops listening; a pending iteration ends after the items already buffered. */
  close(): void {
    this.source.off('data', this.onData);
    this.source.off('error', this.onError);
    this.source.off('end', this.onEnd);
    this.source.off('close', this.onEnd);
    this.onEnd();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T[]> {
    for (;;) {
      if (this.buffer.length > 0) {
        const batch = this.buffer.splice(0, this.max);
        if (this.source.isPaused() && this.buffer.length < this.highWater && !this.failure) {
          this.source.resume();
        }
        yield batch;
        continue;
      }
      if (this.failure) throw this.failure.error;
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}
