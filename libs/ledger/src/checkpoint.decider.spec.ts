import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkpointDecider, type CheckpointSigned } from './checkpoint.decider';

const sign = (treeSize: number) => ({
  org: 'acme',
  origin: 'des/acme',
  treeSize,
  rootHash: 'cm9vdA==',
  note: 'n',
});
const context = { now: 0, newId: () => 'id' };
const given = (...sizes: number[]) =>
  sizes.reduce(
    (state, size) =>
      checkpointDecider.evolve(
        state,
        {
          type: 'ledger_checkpoint_signed',
          data: { ...sign(size), tree_size: size, root_hash: '', org: 'acme', origin: '' },
        } as CheckpointSigned,
        0,
      ),
    checkpointDecider.initialState,
  );

describe('checkpoints', () => {
  it('keeps a checkpoint of a larger tree than the last kept', () => {
    const events = checkpointDecider.decide(sign(12), given(10), context);
    assert.deepEqual(events, [
      {
        type: 'ledger_checkpoint_signed',
        data: { org: 'acme', origin: 'des/acme', tree_size: 12, root_hash: 'cm9vdA==', note: 'n' },
      },
    ]);
  });

  it('keeps nothing for a tree no larger: a second sequencer racing the first adds no checkpoint', () => {
    assert.deepEqual(checkpointDecider.decide(sign(10), given(10), context), []);
    assert.deepEqual(checkpointDecider.decide(sign(9), given(4, 10), context), []);
  });
});
