import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { guardedLookup, literalProblem } from './target-address';

export interface PostOutcome {
  ok: boolean;
  statusCode: number | null;
  error?: string;
}

/** Most of a receiver's answer read (the rest is discarded): only its status matters. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs one notification: 2xx is delivered; any other status, a refused
 * address, a network error or the time limit is a failure. The connection
 * goes to the address the guarded lookup checked.
 */
export function postNotification(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<PostOutcome> {
  const refused = literalProblem(url, options.allowPrivate);
  if (refused) return Promise.resolve({ ok: false, statusCode: null, error: refused });
  const request = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = request(url, {
      method: 'POST',
      headers: { ...headers, 'Content-Length': Buffer.byteLength(body).toString() },
      lookup: guardedLookup(options.allowPrivate),
      signal: AbortSignal.timeout(options.timeoutMs),
      agent: false,
    });
    req.on('response', (res) => {
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) res.destroy();
      });
      const settle = () => {
        const status = res.statusCode ?? 0;
        const ok = status >= 200 && status < 300;
        resolve({ ok, statusCode: status, ...(ok ? {} : { error: `the target answered ${status}` }) });
      };
      res.on('end', settle);
      res.on('close', settle);
      res.on('error', settle);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      const timedOut = error.name === 'AbortError' || error.name === 'TimeoutError';
      resolve({
        ok: false,
        statusCode: null,
        error: timedOut ? `no answer within ${options.timeoutMs} ms` : error.message,
      });
    });
    req.end(body);
  });
}
