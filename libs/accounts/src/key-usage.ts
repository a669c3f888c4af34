import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EventStore } from '#des/event-store';
import { EVENT_STORE } from '#des/platform';

const MIN_INTERVAL_MS = 60_000;

/**
 * Records `api_key_used` at most once a minute per key, on a stream of its own
 * that no decider ever folds, so heavy use never slows down commands.
 */
@Injectable()
export class KeyUsageRecorder {
  private readonly logger = new Logger(KeyUsageRecorder.name);
  private readonly lastRecorded = new Map<string, number>();

  constructor(@Inject(EVENT_STORE) private readonly events: EventStore) {}

  /** `lastUsedAt`: what the read model knows (UNIX seconds), so several API processes stay near the limit. */
  record(org: string, account: string, keyId: string, lastUsedAt: number | null): void {
    const now = Date.now();
    const last = Math.max(this.lastRecorded.get(keyId) ?? 0, (lastUsedAt ?? 0) * 1000);
    if (now - last < MIN_INTERVAL_MS) return;
    this.lastRecorded.set(keyId, now);
    this.events
      .append(
        `api_key_usage-${org}/${keyId}`,
        [
          {
            id: randomUUID(),
            type: 'api_key_used',
            data: { id: keyId, service_account: account },
            metadata: { org, actor: { kind: 'service_account', name: account } },
          },
        ],
        'any',
      )
      .catch((error: unknown) => {
        this.lastRecorded.delete(keyId);
        this.logger.warn(
          `could not record use of key ${keyId}: ${error instanceof Error ? error.message : String(error)}`,
        );
      });
  }
}
