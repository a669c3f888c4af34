import type { Request, Response } from 'express';
import type { Server } from 'node:http';
import { closeUnread, errorBody, SHUTTING_DOWN, ShutdownState } from '#des/platform';

/**
 * Graceful stop of the HTTP side: from the signal on, readiness fails and a
 * new request is answered 503 with `Retry-After` and `Connection: close`;
 * requests in flight finish, each answered with `Connection: close`, for up
 * to the shutdown timeout; the listener stays open meanwhile (closing it
 * would reset the connections still waiting to be accepted), then closes.
 */
export class HttpDrain {
  private readonly inFlight = new Set<Response>();
  private idle?: () => void;

  constructor(
    private readonly state: ShutdownState,
    /** Probes go through while stopping: liveness stays 200 and readiness answers its own 503. */
    private readonly isProbe: (path: string) => boolean,
  ) {}

  /**
   * Counts a request in flight, or answers it 503 while stopping (probes
   * excepted) and says so; `settle` once its response has closed.
   */
  admit(req: Request, res: Response): boolean {
    if (this.state.draining && !this.isProbe(req.path)) {
      res.setHeader('Retry-After', '5');
      closeUnread(req, res);
      res.status(503).json(errorBody(SHUTTING_DOWN));
      return false;
    }
    this.inFlight.add(res);
    return true;
  }

  /** A response admitted has closed (answered, or its connection dropped). */
  settle(res: Response): void {
    if (!this.inFlight.delete(res)) return;
    if (this.inFlight.size === 0) this.idle?.();
  }

  get requestsInFlight(): number {
    return this.inFlight.size;
  }

  /** Refuses new requests, lets those in flight finish (at most `timeoutMs`), then closes the server. */
  async drain(server: Server, timeoutMs: number): Promise<{ unfinished: number }> {
    this.state.begin();
    // Answers still to come close their connection, so no client reuses one the server is about to drop.
    for (const res of this.inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    server.closeIdleConnections();
    if (this.inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.idle = resolve;
        timer = setTimeout(resolve, timeoutMs);
      });
      clearTimeout(timer);
    }
    const unfinished = this.inFlight.size;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
      if (unfinished > 0) server.closeAllConnections();
    });
    return { unfinished };
  }
}
