import type Database from 'better-sqlite3';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { AppendOutcome, AppendRequest } from './sqlite-writer';
import { SqliteWriter } from './sqlite-writer';
import { decodeError, type WriterReply, type WriterRequest } from './sqlite-writer-protocol';

/** Where the SQLite store's commits run. */
export interface LogWriter {
  /** The batch's outcomes, in order; rejects when the transaction itself failed (nothing written). */
  commit(batch: AppendRequest[]): Promise<AppendOutcome[]>;
  durability(): Promise<{ journalMode: string; synchronous: number }>;
  close(): Promise<void>;
}

/** On the caller's thread: the store of an in-memory database, which no other connection can open. */
export class InThreadWriter implements LogWriter {
  private readonly writer: SqliteWriter;

  constructor(db: Database.Database) {
    this.writer = new SqliteWriter(db);
  }

  async commit(batch: AppendRequest[]): Promise<AppendOutcome[]> {
    return this.writer.commit(batch);
  }

  async durability() {
    return this.writer.durability();
  }

  async close(): Promise<void> {}
}

type Waiter = { resolve: (reply: WriterReply) => void; reject: (error: Error) => void };

/**
 * On a thread of its own with its own connection (a file): the commit's
 * fsync and hashing never hold the event loop. The thread keeps the process
 * alive only while a request is in flight; if it dies, what was in flight
 * fails (nothing acknowledged is lost: an unanswered commit is retried by
 * its client, and an append is idempotent by event id) and the next request
 * starts a new one.
 */
export class ThreadedWriter implements LogWriter {
  private worker?: Worker;
  private seq = 0;
  private readonly waiting = new Map<number, Waiter>();

  constructor(
    private readonly path: string,
    private readonly busyTimeoutMs: number,
  ) {
    this.thread(); // started now, so the first append does not wait for it to boot
  }

  async commit(batch: AppendRequest[]): Promise<AppendOutcome[]> {
    const reply = await this.request((seq) => ({ op: 'commit', seq, batch }));
    if ('failure' in reply) throw decodeError(reply.failure);
    if (!('outcomes' in reply)) throw new Error('the writer thread answered a commit with something else');
    return reply.outcomes.map((o) => ('ok' in o ? o : { error: decodeError(o.error) }));
  }

  async durability() {
    const reply = await this.request((seq) => ({ op: 'durability', seq }));
    if ('failure' in reply) throw decodeError(reply.failure);
    if (!('durability' in reply)) throw new Error('the writer thread answered with something else');
    return reply.durability;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.ref(); // kept alive until it has closed its connection
    worker.postMessage({ op: 'close' } satisfies WriterRequest);
    await exited;
  }

  private request(make: (seq: number) => WriterRequest): Promise<WriterReply> {
    const worker = this.thread();
    const seq = ++this.seq;
    return new Promise<WriterReply>((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject });
      worker.ref();
      worker.postMessage(make(seq));
    });
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(join(__dirname, 'sqlite-writer-thread.js'), {
      workerData: { path: this.path, busyTimeoutMs: this.busyTimeoutMs },
    });
    worker.unref();
    worker.on('message', (reply: WriterReply) => {
      const waiter = this.waiting.get(reply.seq);
      this.waiting.delete(reply.seq);
      if (this.waiting.size === 0) worker.unref();
      waiter?.resolve(reply);
    });
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
    };
    worker.on('error', (error) => fail(error));
    worker.on('exit', (code) => fail(new Error(`the SQLite writer thread exited (${code})`)));
    this.worker = worker;
    return worker;
  }
}
