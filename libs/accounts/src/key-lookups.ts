import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { Privilege } from '#des/kernel';
import { READ_STORE } from '#des/platform';
import { chargeReadsTo, type ReadStore } from '#des/read-store';
import { accountId, API_KEYS, SERVICE_ACCOUNTS } from './accounts.projection';

export interface KeyDoc {
  _id: string;
  org: string;
  service_account: string;
  expires_at: number;
  revoked: boolean;
  last_used_at: number | null;
}

/** What the read models say of a key: its document and its account's privilege. */
export interface KeyHolder {
  key: KeyDoc;
  privilege: Privilege;
}

/** A key that opens: known, not revoked, not expired. */
export function isLive(holder: KeyHolder | null, nowSeconds = Date.now() / 1000): holder is KeyHolder {
  if (!holder) return false;
  const { revoked, expires_at } = holder.key;
  return !revoked && !(expires_at > 0 && expires_at <= nowSeconds);
}

/**
 * Looks API keys up for authentication. Requests that present the same key at
 * the same time share one lookup, so a burst of one client's requests costs
 * the read-model server two queries, not two per request. A lookup begun
 * before this process revoked a key is never shared after (`keyRevoked`).
 *
 * Where the read models are held in this process (embedded), an answer is
 * kept and given again until either collection changes (their change
 * marks: a projection writing a key, a revocation, an account's privilege),
 * so a request's key check is a map lookup. A shared read-model server has
 * other writers this process does not see: there, every request reads.
 */
@Injectable()
export class KeyLookups {
  private generation = 0;
  private readonly inFlight = new Map<string, { generation: number; lookup: Promise<KeyHolder | null> }>();
  /** Answers kept by key hash, with the marks of both collections when their lookup began. */
  private readonly kept = new LRUCache<string, Kept>({ max: 10_000 });

  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  /** The answer kept for `hash` while both collections are unchanged (null: no such key); undefined when it must be read. */
  known(hash: string): KeyHolder | null | undefined {
    return this.keptAt(hash, this.marks());
  }

  holderOf(hash: string): Promise<KeyHolder | null> {
    const marks = this.marks();
    const known = this.keptAt(hash, marks);
    if (known !== undefined) return Promise.resolve(known);
    const shared = this.inFlight.get(hash);
    if (shared && shared.generation === this.generation) return shared.lookup;
    const generation = this.generation;
    const lookup = this.read(hash).finally(() => {
      if (this.inFlight.get(hash)?.lookup === lookup) this.inFlight.delete(hash);
    });
    if (marks)
      void lookup.then(
        (holder) => this.kept.set(hash, { holder, marks, generation }),
        () => undefined,
      );
    this.inFlight.set(hash, { generation, lookup });
    return lookup;
  }

  /** The answer kept for `hash` when it was read at these marks and this generation. */
  private keptAt(hash: string, marks: string | undefined): KeyHolder | null | undefined {
    const kept = marks && this.kept.get(hash);
    return kept && kept.marks === marks && kept.generation === this.generation ? kept.holder : undefined;
  }

  /** Both collections' change marks as one string, or undefined where the store cannot tell. */
  private marks(): string | undefined {
    const keys = this.reads.collection(API_KEYS).changeMark?.();
    const accounts = this.reads.collection(SERVICE_ACCOUNTS).changeMark?.();
    return keys === undefined || accounts === undefined ? undefined : `${keys}/${accounts}`;
  }

  /** Called once a revocation is in the read models: later requests look their key up afresh. */
  keyRevoked(): void {
    this.generation++;
  }

  private async read(hash: string): Promise<KeyHolder | null> {
    // Whoever is calling, the lookup waits the key's turn at the read-model server (ADR 0017).
    chargeReadsTo(`key:${hash}`);
    const key = (await this.reads.collection(API_KEYS).findOne({ hash })) as KeyDoc | null;
    if (!key) return null;
    const account = await this.reads
      .collection(SERVICE_ACCOUNTS)
      .findOne({ _id: accountId(key.org, key.service_account) });
    return account ? { key, privilege: account.privilege as Privilege } : null;
  }
}

interface Kept {
  holder: KeyHolder | null;
  marks: string;
  generation: number;
}
