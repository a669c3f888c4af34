import { AsyncLocalStorage } from 'node:async_hooks';
import { setTurnOwner } from '#des/event-store';

/**
 * On whose behalf the reads of the current request (or job) go to a shared
 * read-model server. A request starts with no one; authentication names the
 * caller's key, then its organization (`chargeReadsTo`), and every query
 * after that waits its organization's turn at the `TenantReadGate`.
 *
 * The same scope carries the request's id for its log lines: one async
 * context per request, not one per concern (each enabled AsyncLocalStorage
 * costs a hook call on every promise the request makes).
 */
interface ReadScope {
  tenant?: string;
  requestId?: string;
}

const scope = new AsyncLocalStorage<ReadScope>();
// Long work sliced on the event loop takes turns by the organization the scope charges (ADR 0046).
setTurnOwner(() => scope.getStore()?.tenant);

/** Runs `fn` in a fresh scope (one per request or job): reads are charged to no one until `chargeReadsTo`. */
export function inReadScope<T>(fn: () => T, tenant?: string, requestId?: string): T {
  return scope.run({ tenant, requestId }, fn);
}

/** Charges the rest of the current scope's reads to `tenant`. Outside any scope it does nothing. */
export function chargeReadsTo(tenant: string): void {
  const current = scope.getStore();
  if (current) current.tenant = tenant;
}

/**
 * The current scope itself (one object per request or job), for notes other
 * concerns keep about it (weakly, by identity) without a context of their own.
 */
export function currentScope(): object | undefined {
  return scope.getStore();
}

/** The id of the request the current scope serves, if any. */
export function scopeRequestId(): string | undefined {
  return scope.getStore()?.requestId;
}

interface Lane {
  running: number;
  waiting: (() => void)[];
}

/**
 * At most `perTenant` queries of one tenant in flight at once; the rest wait
 * in that tenant's own line. Another tenant's query never waits here, so a
 * burst of one organization's requests (each a few lookups) cannot fill the
 * read-model server's queue ahead of everyone else's (ADR 0017). Reads
 * charged to no one (the projector, start-up) pass straight through.
 */
export class TenantReadGate {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly perTenant: number) {}

  async run<T>(query: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await query();
    } finally {
      release();
    }
  }

  /** Waits for a turn of the current scope's tenant; the answer gives it back (a cursor holds one while open). */
  async acquire(): Promise<() => void> {
    const tenant = scope.getStore()?.tenant;
    if (tenant === undefined || !(this.perTenant > 0)) return () => undefined;
    await this.enter(tenant);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.leave(tenant);
    };
  }

  /** Tenants with queries in flight or waiting (for tests and metrics). */
  busyTenants(): number {
    return this.lanes.size;
  }

  private enter(tenant: string): Promise<void> {
    const lane = this.lanes.get(tenant) ?? { running: 0, waiting: [] };
    this.lanes.set(tenant, lane);
    if (lane.running < this.perTenant) {
      lane.running++;
      return Promise.resolve();
    }
    return new Promise((admit) => lane.waiting.push(admit));
  }

  private leave(tenant: string): void {
    const lane = this.lanes.get(tenant);
    if (!lane) return;
    const next = lane.waiting.shift();
    // The slot passes straight to the next query in line.
    if (next) next();
    else if (--lane.running === 0) this.lanes.delete(tenant);
  }
}
