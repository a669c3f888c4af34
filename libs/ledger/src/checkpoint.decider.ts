import type { Decider, DomainEvent } from '#des/kernel';

/** A signed checkpoint of an organization's tree: the note, and the fields it signs. */
export type CheckpointSigned = DomainEvent<
  'ledger_checkpoint_signed',
  { org: string; origin: string; tree_size: number; root_hash: string; note: string }
>;

export interface SignCheckpoint {
  org: string;
  origin: string;
  treeSize: number;
  /** Base64, as the note carries it. */
  rootHash: string;
  note: string;
}

/**
 * An organization's checkpoints, one stream (`ledger-<org>/checkpoints`):
 * a checkpoint is kept only for a tree larger than the last one kept, so two
 * sequencers racing after a lease moved keep one of them, never a smaller.
 */
export const checkpointDecider: Decider<SignCheckpoint, { treeSize: number }, CheckpointSigned> = {
  initialState: { treeSize: 0 },
  evolve: (state, event) => ({ treeSize: Math.max(state.treeSize, event.data.tree_size) }),
  decide: (command, state) =>
    command.treeSize <= state.treeSize
      ? []
      : [
          {
            type: 'ledger_checkpoint_signed',
            data: {
              org: command.org,
              origin: command.origin,
              tree_size: command.treeSize,
              root_hash: command.rootHash,
              note: command.note,
            },
          },
        ],
};

export const checkpointStream = (org: string) => `ledger-${org}/checkpoints`;
