import { randomUUID } from 'node:crypto';
import { SqliteEventStore } from '#des/event-store';

/**
 * Appends `total` events that no benchmarked read touches (organization
 * `noise`, 20,000 streams) straight to a SQLite log, 200 per append.
 */
export async function seedNoise(path: string, total: number): Promise<void> {
  const store = new SqliteEventStore({ path });
  for (let i = 0; i < total; i += 200) {
    await store.append(
      `trail-noise/flow-${i % 20_000}`,
      Array.from({ length: Math.min(200, total - i) }, (_, j) => ({
        id: randomUUID(),
        type: 'attestation_reported',
        data: { name: `check-${(i + j) % 17}`, compliant: true },
        metadata: { org: 'noise' },
      })),
      'any',
    );
  }
  await store.close();
}
