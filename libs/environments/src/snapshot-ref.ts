import { INSTANT_FORMS, ISO_INSTANT_FORM, parseInstant, UNIX_INSTANT_FORM } from '#des/kernel';
import { ApiError, VALIDATION_FAILED } from '#des/platform';

/** A snapshot reference as the field writes it. */
export type SnapshotRef =
  | { kind: 'latest' }
  | { kind: 'index'; index: number }
  /** `~N`: N snapshots before the latest. */
  | { kind: 'before_latest'; back: number }
  /** `@<UNIX seconds or ISO-8601>`: the snapshot in force at that instant. */
  | { kind: 'at'; at: number };

/** Each form of reference parseSnapshotRef takes: the latest, N, ~N, @<UNIX seconds>, @<ISO-8601>. */
export const SNAPSHOT_REF_FORMS = [
  '-1',
  '[1-9]\\d{0,9}',
  '~(0|[1-9]\\d{0,9})',
  `@${UNIX_INSTANT_FORM}`,
  `@${ISO_INSTANT_FORM}`,
];

/** Every reference parseSnapshotRef takes, as one pattern (for the OpenAPI document). */
export const SNAPSHOT_REF_PATTERN = `^(${SNAPSHOT_REF_FORMS.join('|')})$`;

const MESSAGE = `a snapshot reference is -1 (the latest), N, ~N (N before the latest) or @<instant>: ${INSTANT_FORMS}`;

const SNAPSHOT_REF = new RegExp(SNAPSHOT_REF_PATTERN);

export function parseSnapshotRef(raw: string): SnapshotRef {
  // The documented pattern is the gate, so the document and the parser cannot disagree.
  if (!SNAPSHOT_REF.test(raw)) throw new ApiError(400, VALIDATION_FAILED, { index: MESSAGE });
  if (raw === '-1') return { kind: 'latest' };
  let match = /^([1-9]\d{0,9})$/.exec(raw);
  if (match) return { kind: 'index', index: Number(match[1]) };
  match = /^~(0|[1-9]\d{0,9})$/.exec(raw);
  if (match) return { kind: 'before_latest', back: Number(match[1]) };
  const at = raw.startsWith('@') ? parseInstant(raw.slice(1)) : undefined;
  if (at !== undefined) return { kind: 'at', at };
  throw new ApiError(400, VALIDATION_FAILED, { index: MESSAGE });
}

/** The snapshot number a reference names, given the latest (for `at`: the latest then); 0 or less: none. */
export function snapshotIndex(ref: SnapshotRef, latest: number): number {
  if (ref.kind === 'index') return ref.index;
  if (ref.kind === 'before_latest') return latest - ref.back;
  return latest;
}

/**
 * A snapshot interval as the Kosli CLI sends it: `A..B` or `A`, each end `N`
 * (snapshot N), `~N` (N before the latest) or `NOW` (the latest), an omitted
 * end meaning NOW; empty for all.
 */
export const SNAPSHOT_INTERVAL = /^((\d+|~\d+|NOW)?(\.\.(\d+|~\d+|NOW)?)?)?$/;
export const SNAPSHOT_INTERVAL_MESSAGE =
  'interval is A..B or A, each end N (snapshot N), ~N (N before the latest) or NOW (the latest; an omitted end)';

/** The lowest and highest snapshot numbers of a (non-empty) interval, in either order given, with `latest` the latest. */
export function snapshotInterval(interval: string, latest: number): { from: number; to: number } {
  const end = (e: string | undefined) =>
    !e || e === 'NOW' ? latest : e.startsWith('~') ? latest - Number(e.slice(1)) : Number(e);
  const [first, last = first] = interval.split('..').map(end);
  return { from: Math.min(first, last), to: Math.max(first, last) };
}
