import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpLimitsConfig, Metrics } from '#des/platform';

/**
 * The server's own timeouts, as configured (Node's defaults: 60 s for
 * headers, 5 min for a request, checked every 30 s; no idle timeout; no cap
 * on requests per connection). Node checks the headers and request
 * deadlines of every connection, one that never sends a byte included, each
 * `connectionsCheckingInterval`: a quarter of the headers timeout, at most a
 * second, so a deadline is kept to within that.
 */
export function applyHttpTimeouts(server: Server, limits: HttpLimitsConfig): void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxRequestsPerSocket = limits.maxRequestsPerSocket;
  server.setTimeout(limits.idleTimeoutMs);
  // Read when the server starts listening.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.max(
    50,
    Math.min(1000, Math.floor(limits.headersTimeoutMs / 4)),
  );
}

/**
 * Caps connections in total and per remote address. At a cap, a new
 * connection takes the place of the oldest idle one (no request under way:
 * never sent one, or kept alive between two) in the same scope, so holding
 * idle connections locks nobody out; when every connection in scope is busy,
 * the new one is closed at once, before it is read.
 */
export class ConnectionLimits {
  private readonly byAddress = new Map<string, Set<Socket>>();
  /** Idle connections, the longest idle first. */
  private readonly idle = new Set<Socket>();
  private open = 0;

  constructor(
    private readonly limits: Pick<HttpLimitsConfig, 'maxConnections' | 'maxConnectionsPerAddress'>,
    private readonly metrics?: Metrics,
  ) {}

  watch(server: Server): void {
    server.on('connection', (socket: Socket) => this.connected(socket));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.busy(req.socket as Socket, res));
  }

  get connections(): number {
    return this.open;
  }

  private connected(socket: Socket): void {
    const address = socket.remoteAddress ?? '';
    const fromAddress = this.byAddress.get(address);
    const perAddress = this.limits.maxConnectionsPerAddress;
    if (
      perAddress > 0 &&
      fromAddress &&
      fromAddress.size >= perAddress &&
      !this.reclaim(fromAddress, 'address')
    )
      return this.refuse(socket, 'address');
    if (this.open >= this.limits.maxConnections && !this.reclaim(this.idle, 'total'))
      return this.refuse(socket, 'total');
    this.open++;
    if (fromAddress) fromAddress.add(socket);
    else this.byAddress.set(address, new Set([socket]));
    this.idle.add(socket);
    socket.once('close', () => this.release(socket, address));
  }

  /** A connection closed, or reclaimed (its 'close' comes later): counted out once. */
  private release(socket: Socket, address: string): void {
    this.idle.delete(socket);
    const set = this.byAddress.get(address);
    if (!set?.delete(socket)) return;
    this.open--;
    if (set.size === 0) this.byAddress.delete(address);
  }

  private busy(socket: Socket, res: ServerResponse): void {
    this.idle.delete(socket);
    res.once('close', () => {
      if (socket.destroyed) return;
      this.idle.delete(socket);
      this.idle.add(socket);
    });
  }

  /** Closes the longest idle connection among `sockets` (in the order they became idle, or opened); false if none is idle. */
  private reclaim(sockets: Set<Socket>, cap: string): boolean {
    for (const socket of sockets) {
      if (!this.idle.has(socket)) continue;
      const address = socket.remoteAddress ?? '';
      socket.destroy();
      this.release(socket, address);
      this.metrics?.connectionsShed.inc({ cap, closed: 'idle' });
      return true;
    }
    return false;
  }

  private refuse(socket: Socket, cap: string): void {
    socket.destroy();
    this.metrics?.connectionsShed.inc({ cap, closed: 'new' });
  }
}
