import { Agent, request } from 'node:http';

/** A body serialized before the clock starts: the figure is the service's, not the client's JSON.stringify. */
export class JsonBody {
  constructor(readonly text: string) {}
}

export interface Client {
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: string }>;
  /** GET that counts the body's bytes and lines and keeps nothing of it. */
  drain(path: string): Promise<{ status: number; bytes: number; lines: number }>;
  close(): void;
}

/** A keep-alive HTTP client for loopback benchmarks. */
export function client(port: number, headers: Record<string, string> = {}, sockets = 32): Client {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  return {
    call(method, path, body) {
      const payload =
        body === undefined ? undefined : body instanceof JsonBody ? body.text : JSON.stringify(body);
      return new Promise((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            method,
            path,
            agent,
            headers: {
              ...headers,
              ...(payload
                ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
                : {}),
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (d: Buffer) => chunks.push(d));
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
            );
          },
        );
        req.on('error', reject);
        req.end(payload);
      });
    },
    drain(path) {
      return new Promise((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, method: 'GET', path, agent, headers }, (res) => {
          let bytes = 0;
          let lines = 0;
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            for (const byte of chunk) if (byte === 10) lines++;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, lines }));
        });
        req.on('error', reject);
        req.end();
      });
    },
    close: () => agent.destroy(),
  };
}

/** Requests per second with `concurrency` loops for `seconds` (bounded in time and count). */
export async function throughput(
  c: Client,
  path: string,
  seconds: number,
  concurrency: number,
): Promise<number> {
  const deadline = Date.now() + seconds * 1000;
  let done = 0;
  const loop = async () => {
    while (Date.now() < deadline && done < 5_000_000) {
      const res = await c.call('GET', path);
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.body.slice(0, 200)}`);
      done++;
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: concurrency }, loop));
  return Math.round(done / ((Date.now() - started) / 1000));
}

/** The p-th percentile of the samples (in any order). */
export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return +sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))].toFixed(2);
}
