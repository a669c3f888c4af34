import { parentPort, workerData } from 'node:worker_threads';
import { openLog, SqliteWriter } from './sqlite-writer';
import { encodeError, type WriterReply, type WriterRequest } from './sqlite-writer-protocol';

/**
 * The SQLite log's writer thread: its own connection to the file, committing
 * the batches the store sends, so a commit (its fsync) never holds the
 * event loop that serves requests.
 */
const { path, busyTimeoutMs } = workerData as { path: string; busyTimeoutMs: number };
const db = openLog(path, busyTimeoutMs);
const writer = new SqliteWriter(db);

parentPort!.on('message', (request: WriterRequest) => {
  if (request.op === 'close') {
    db.close();
    parentPort!.close();
    return;
  }
  let reply: WriterReply;
  try {
    reply =
      request.op === 'commit'
        ? {
            seq: request.seq,
            outcomes: writer
              .commit(request.batch)
              .map((o) => ('ok' in o ? o : { error: encodeError(o.error) })),
          }
        : { seq: request.seq, durability: writer.durability() };
  } catch (error) {
    reply = { seq: request.seq, failure: encodeError(error) };
  }
  parentPort!.postMessage(reply);
});
