import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
  /** What the receiver answered (or 'hang': it never did). */
  answer: number | 'hang';
}

/**
 * A webhook receiver on loopback: records every request and answers as told
 * (a status per request, in order, then `otherwise`); 'hang' never answers,
 * so the sender's time limit is what ends it.
 */
export class Receiver {
  readonly received: Received[] = [];
  private plan: (number | 'hang')[] = [];
  otherwise: number | 'hang' = 200;
  private server?: Server;
  private readonly hanging = new Set<import('node:http').ServerResponse>();

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const answer = this.plan.shift() ?? this.otherwise;
        this.received.push({ headers: req.headers, body, json: JSON.parse(body), answer });
        if (answer === 'hang') {
          this.hanging.add(res);
          res.on('close', () => this.hanging.delete(res));
          return;
        }
        res.writeHead(answer, { 'Content-Type': 'text/plain' }).end(answer < 300 ? 'ok' : 'no');
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The next answers, in order. */
  answer(...plan: (number | 'hang')[]): void {
    this.plan.push(...plan);
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((r) => this.server?.close(() => r()) ?? r());
  }
}
