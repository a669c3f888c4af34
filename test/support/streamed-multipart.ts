import { createHash } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders, type ClientRequest } from 'node:http';

/**
 * A multipart write streamed the way a client uploading large files sends
 * it: data_json, then `files` files of `fileBytes` each, written chunk by
 * chunk with back-pressure (never whole in memory, so the test's own memory
 * stays flat). Each file's bytes are its own (from
 * `seed` and its index), so no two files of a run are the same content.
 */
export interface StreamedUpload {
  baseUrl: string;
  path: string;
  key: string;
  dataJson: unknown;
  files: number;
  fileBytes: number;
  seed: string;
  /** Stop sending after this many file bytes and drop the connection (a client that goes away). */
  abortAfterBytes?: number;
  /** Called once this many file bytes are written (then the upload waits for the returned promise). */
  pauseAfterBytes?: { bytes: number; until: () => Promise<void> };
}

export interface UploadAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: { message?: string; errors?: Record<string, string> | null; [key: string]: unknown };
}

const BOUNDARY = 'des-upload-boundary-5c1e';
const CHUNK = 64 * 1024;

const dataPart = (json: unknown) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="data_json"\r\n\r\n${JSON.stringify(json)}\r\n`;
const fileHead = (i: number) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="attachment_file"; filename="file-${i}.bin"\r\n` +
  'Content-Type: application/octet-stream\r\n\r\n';
const CLOSING = `--${BOUNDARY}--\r\n`;

/** The chunk a file repeats: its seed and index written over and over. */
const chunkOf = (seed: string, file: number) => Buffer.alloc(CHUNK, `${seed}/${file};`);

/** Until the request may be written again (or is closed). */
function drained(req: ClientRequest): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      req.off('drain', done).off('close', done);
      resolve();
    };
    req.on('drain', done).on('close', done);
  });
}

/** The SHA-256 of each file an upload sends (its bytes made again, a chunk at a time). */
export async function digestsOf(u: Pick<StreamedUpload, 'files' | 'fileBytes' | 'seed'>): Promise<string[]> {
  const digests: string[] = [];
  for (let i = 0; i < u.files; i++) {
    const chunk = chunkOf(u.seed, i);
    const hash = createHash('sha256');
    for (let left = u.fileBytes; left > 0; left -= CHUNK) {
      hash.update(left >= CHUNK ? chunk : chunk.subarray(0, left));
      if (left % (16 * CHUNK) === 0) await new Promise((r) => setImmediate(r));
    }
    digests.push(hash.digest('hex'));
  }
  return digests;
}

export function sendUpload(u: StreamedUpload): Promise<UploadAnswer> {
  const url = new URL(u.path, u.baseUrl);
  const head = dataPart(u.dataJson);
  const length =
    Buffer.byteLength(head) +
    Array.from({ length: u.files }, (_, i) => Buffer.byteLength(fileHead(i)) + u.fileBytes + 2).reduce(
      (a, b) => a + b,
      0,
    ) +
    Buffer.byteLength(CLOSING);
  return new Promise<UploadAnswer>((resolve, reject) => {
    const req: ClientRequest = httpRequest({
      host: url.hostname,
      port: url.port,
      method: 'POST',
      path: url.pathname,
      headers: {
        Authorization: `Bearer ${u.key}`,
        'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
        'Content-Length': String(length),
      },
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: UploadAnswer['body'];
        try {
          body = JSON.parse(text) as UploadAnswer['body'];
        } catch {
          body = { message: text };
        }
        req.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    // A server that answers early (a refusal before the body is read) may close while we still write.
    req.on('error', (error) => {
      if (!answered && u.abortAfterBytes === undefined) reject(error);
    });
    // One chunk a turn of the event loop (the test's client shares the process with the service).
    const write = async (chunk: Buffer | string) => {
      if (!req.write(chunk)) await drained(req);
      else await new Promise((r) => setImmediate(r));
    };
    // Written once connected: before, the request would buffer whatever it is given.
    const connected = new Promise<void>((r) =>
      req.once('socket', (socket) => (socket.connecting ? socket.once('connect', () => r()) : r())),
    );
    void (async () => {
      let sent = 0;
      await connected;
      await write(head);
      for (let i = 0; i < u.files && !answered && !req.destroyed; i++) {
        await write(fileHead(i));
        const chunk = chunkOf(u.seed, i);
        for (let left = u.fileBytes; left > 0 && !answered && !req.destroyed;) {
          const piece = left >= CHUNK ? chunk : chunk.subarray(0, left);
          await write(piece);
          left -= piece.length;
          sent += piece.length;
          if (u.pauseAfterBytes && sent >= u.pauseAfterBytes.bytes) {
            const { until } = u.pauseAfterBytes;
            u.pauseAfterBytes = undefined;
            await until();
          }
          if (u.abortAfterBytes !== undefined && sent >= u.abortAfterBytes) {
            req.destroy();
            resolve({ status: 0, headers: {}, body: {} });
            return;
          }
        }
        await write('\r\n');
      }
      if (!answered && !req.destroyed) req.end(CLOSING);
    })().catch(reject);
  });
}

/** A JSON body PUT in 64 KiB writes with back-pressure (as a client across the network would send it). */
export function sendJson(
  baseUrl: string,
  path: string,
  key: string,
  body: Buffer,
  method = 'PUT',
): Promise<{ status: number; body: unknown }> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      method,
      path: url.pathname,
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        'Content-Length': String(body.length),
      },
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      });
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    void (async () => {
      for (let at = 0; at < body.length && !answered; at += 64 * 1024) {
        if (!req.write(body.subarray(at, at + 64 * 1024))) await drained(req);
      }
      if (!answered) req.end();
    })();
  });
}
