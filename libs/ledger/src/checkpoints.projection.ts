import { microsToSeconds } from '#des/event-store';
import type { Projection } from '#des/projections';
import type { CheckpointSigned } from './checkpoint.decider';
import type { CheckpointTimestamped } from './checkpoint-timestamp.decider';

export const LEDGER_CHECKPOINTS = 'ledger_checkpoints';

/** Checkpoints by organization and tree size, with the instant each was kept and its RFC 3161 timestamp once it has one. */
export const ledgerCheckpointsProjection: Projection = {
  name: 'ledger_checkpoints',
  collections: [
    {
      name: LEDGER_CHECKPOINTS,
      indexes: [
        { name: 'by_size', keys: { org: 1, tree_size: -1 } },
        { name: 'by_instant', keys: { org: 1, recorded_at: -1 } },
      ],
    },
  ],
  project(event) {
    if (event.type === 'ledger_checkpoint_timestamped') {
      const { data } = event as unknown as CheckpointTimestamped;
      return [
        {
          collection: LEDGER_CHECKPOINTS,
          id: `${data.org}/${data.tree_size}`,
          update: { $set: { timestamp: data.response, tsa: data.tsa } },
        },
      ];
    }
    if (event.type !== 'ledger_checkpoint_signed') return [];
    const { data } = event as unknown as CheckpointSigned;
    return [
      {
        collection: LEDGER_CHECKPOINTS,
        id: `${data.org}/${data.tree_size}`,
        once: true,
        update: {
          $set: { ...data, recorded_at: microsToSeconds(event.recordedAt), position: event.position },
        },
      },
    ];
  },
};
