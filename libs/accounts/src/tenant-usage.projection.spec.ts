import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { appendSize, EventToAppend, SqliteEventStore } from '#des/event-store';
import { Projector } from '#des/projections';
import { MemoryReadStore } from '#des/read-store';
import { accountsProjection } from './accounts.projection';
import { TENANT_USAGE_COLLECTION, tenantUsageProjection } from './tenant-usage.projection';

const file = (digit: string, size: number) => ({ filename: `${digit}.bin`, sha256: digit.repeat(64), size });
const event = (org: string, type: string, data: Record<string, unknown>): EventToAppend => ({
  id: randomUUID(),
  type,
  data,
  metadata: { org, actor: { kind: 'service_account', name: 'ci' }, correlation_id: randomUUID() },
});

describe('tenant usage projection', () => {
  it("counts each organization's event bytes as the store counts them, and each attachment file once per organization", async () => {
    const store = new SqliteEventStore({ path: ':memory:' });
    const appended: Record<string, number> = { acme: 0, beta: 0 };
    const append = async (stream: string, e: EventToAppend) => {
      await store.append(stream, [e], 'any');
      appended[e.metadata.org!] += appendSize([e]);
    };
    await append('flow-acme/f', event('acme', 'flow_created', { name: 'f', description: 'é ü' }));
    await append(
      'trail-acme/f/t',
      event('acme', 'attestation_reported', { attachments: [file('a', 100), file('b', 20)] }),
    );
    // The same file again, in the same attestation and in a later one: kept once, counted once.
    await append(
      'trail-acme/f/t',
      event('acme', 'attestation_reported', { attachments: [file('a', 100), file('a', 100)] }),
    );
    await append('trail-beta/f/t', event('beta', 'attestation_reported', { attachments: [file('a', 100)] }));
    await store.append(
      'service',
      [{ id: randomUUID(), type: 'service_started', data: {}, metadata: {} }],
      'any',
    );

    for (const batchSize of [1, 2, 500]) {
      const reads = new MemoryReadStore();
      await new Projector(store, reads, [accountsProjection, tenantUsageProjection], { batchSize }).rebuild();
      const usage = await reads.collection(TENANT_USAGE_COLLECTION).find({}, { sort: { _id: 1 } });
      assert.deepEqual(
        usage.map((u) => [u._id, u.event_log_bytes, u.attachment_bytes]),
        [
          ['acme', appended.acme, 120],
          ['beta', appended.beta, 100],
        ],
        `batches of ${batchSize}`,
      );
    }
    await store.close();
  });

  it("projects an organization's overrides onto its document", async () => {
    const store = new SqliteEventStore({ path: ':memory:' });
    await store.append(
      'organization-acme',
      [
        event('acme', 'organization_created', { name: 'acme', features: [], max_users: 5 }),
        event('acme', 'organization_limits_set', { limits: { writesPerSecond: 5, eventLogBytes: 0 } }),
        event('acme', 'organization_limits_set', { limits: { eventLogBytes: 0 } }),
      ],
      'no_stream',
    );
    const reads = new MemoryReadStore();
    await new Projector(store, reads, [accountsProjection], {}).rebuild();
    const org = await reads.collection('organizations').findOne({ _id: 'acme' });
    assert.deepEqual(org?.limits, { eventLogBytes: 0 });
    await store.close();
  });
});
