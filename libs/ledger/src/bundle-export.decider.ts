import type { Decider, DomainEvent } from '#des/kernel';

/** What a bundle shows: one trail, or a change population (or a sample of it). */
export type BundleSubject =
  { kind: 'trail'; flow: string; trail: string } | { kind: 'changes'; query: Record<string, string> };

/** An evidence bundle was handed out: what it shows, as of when, and the manifest it signed. */
export type BundleExported = DomainEvent<
  'ledger_bundle_exported',
  {
    subject: BundleSubject;
    /** The instant the bundle shows, UNIX seconds. */
    at: number;
    manifest_sha256: string;
    /** The checkpoint its proofs lead to. */
    tree_size: number;
    events: number;
    bytes: number;
  }
>;

export type RecordExport = BundleExported['data'];

/** Each export is its own stream (`ledger-<org>/exports/<id>`): recorded once, never folded again. */
export const bundleExportDecider: Decider<RecordExport, { recorded: boolean }, BundleExported> = {
  initialState: { recorded: false },
  evolve: () => ({ recorded: true }),
  decide: (command, state) => (state.recorded ? [] : [{ type: 'ledger_bundle_exported', data: command }]),
};

export const bundleExportStream = (org: string, id: string) => `ledger-${org}/exports/${id}`;
