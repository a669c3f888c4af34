import type { Schemas } from './api';

type Running = Schemas['SnapshotArtifactDto'];

export interface SnapshotDiff {
  /** Running at the later instant, not at the earlier one. */
  started: Running[];
  /** Running at the earlier instant, not at the later one. */
  exited: Running[];
  /** Running at both, with another compliance or provenance (the audit log's `changed`). */
  changed: { before: Running; after: Running }[];
}

const origin = (a: Running) => (a.provenance ? `${a.provenance.flow}/${a.provenance.trail}` : '');

/** What changed in an environment between two of its snapshots (either may be none: nothing ran). */
export function snapshotDiff(earlier: Running[], later: Running[]): SnapshotDiff {
  const before = new Map(earlier.map((a) => [a.fingerprint, a]));
  const after = new Map(later.map((a) => [a.fingerprint, a]));
  return {
    started: later.filter((a) => !before.has(a.fingerprint)),
    exited: earlier.filter((a) => !after.has(a.fingerprint)),
    changed: later.flatMap((a) => {
      const was = before.get(a.fingerprint);
      return was && (was.compliant !== a.compliant || origin(was) !== origin(a))
        ? [{ before: was, after: a }]
        : [];
    }),
  };
}
