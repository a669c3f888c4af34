import type { Request, Response } from 'express';
import type { Socket } from 'node:net';

/** How long a refused request's connection stays open, unread, for its client to take the answer. */
export const LINGER_MS = 2000;

/**
 * A request answered before its body was read (an upload refused 429, 413 or
 * 507): Node would read the rest of the body only to throw it away, to keep
 * the connection — up to 95 MB per refused upload, at the sender's speed,
 * on the event loop every tenant shares. Instead the answer closes the
 * connection: it is sent, then the socket is half-closed and read no more
 * (the sender's TCP window fills and it stops sending), and it is closed
 * once the client has gone or after `LINGER_MS`. Closing at once would reset
 * the connection, and a client still sending could lose the answer with it.
 */
export function closeUnread(req: Request, res: Response): void {
  res.setHeader('Connection', 'close');
  const socket = req.socket as Socket & { destroySoon?: () => void };
  // Node ends a `Connection: close` response with `destroySoon()` (after its answer is written).
  socket.destroySoon = function linger(this: Socket) {
    if (this.writable) this.end();
    // Read no more: pausing alone leaves the HTTP parser reading the socket's handle.
    this.pause();
    (this as Socket & { _handle?: { readStop?: () => number } })._handle?.readStop?.();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
  };
}
