import type { Response } from 'express';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Sends `body` as the answer's content with back-pressure: the next chunk is
 * read only once the client has taken the last, so a client that reads
 * slowly, or not at all, holds the socket's and the stream's few buffers,
 * never the whole answer. A client that goes away ends the reading (both
 * streams are destroyed); so does a source that fails midway, which the
 * client sees as a truncated answer (a status can no longer say so).
 * Resolves once the answer is sent or abandoned.
 */
export async function sendStream(res: Response, body: Readable): Promise<void> {
  await pipeline(body, res).catch(() => undefined);
}
