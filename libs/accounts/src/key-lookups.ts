import { Inject, Injectable } from '@nestjs/common';
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

/**
 * Looks API keys up for authentication. Requests that present the same key at
 * the same time share one lookup, so a burst of one client's requests costs
 * the read-model server two queries, not two per request. A lookup begun
 * before this process revoked a key is never shared after (`keyRevoked`).
 */
@Injectable()
export class KeyLookups {
  private generation = 0;
  private readonly inFlight = new Map<string, { generation: number; lookup: Promise<KeyHolder | null> }>();

  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  holderOf(hash: string): Promise<KeyHolder | null> {
    const shared = this.inFlight.get(hash);
    if (shared && shared.generation === this.generation) return shared.lookup;
    const lookup = this.read(hash).finally(() => {
      if (this.inFlight.get(hash)?.lookup === lookup) this.inFlight.delete(hash);
    });
    this.inFlight.set(hash, { generation: this.generation, lookup });
    return lookup;
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
