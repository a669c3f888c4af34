import type { Decider, DomainEvent } from '#des/kernel';

/** An RFC 3161 timestamp of a signed checkpoint's note, as the TSA sent it (DER TimeStampResp, base64). */
export type CheckpointTimestamped = DomainEvent<
  'ledger_checkpoint_timestamped',
  { org: string; tree_size: number; tsa: string; response: string }
>;

export type KeepTimestamp = CheckpointTimestamped['data'];

/** One stream per checkpoint (`ledger-<org>/timestamps/<tree size>`): its timestamp is kept once. */
export const checkpointTimestampDecider: Decider<KeepTimestamp, { kept: boolean }, CheckpointTimestamped> = {
  initialState: { kept: false },
  evolve: () => ({ kept: true }),
  decide: (command, state) => (state.kept ? [] : [{ type: 'ledger_checkpoint_timestamped', data: command }]),
};

export const checkpointTimestampStream = (org: string, treeSize: number) =>
  `ledger-${org}/timestamps/${treeSize}`;
