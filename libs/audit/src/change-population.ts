import { createHash } from 'node:crypto';
import type { AuditRow } from '#des/environments';
import { isoMicros } from '#des/kernel';

/**
 * The change population (docs/auditors.md, "The change population"): every
 * artifact that started running in the named environments within a period,
 * as known at a pinned instant, with its evidence and what an auditor would
 * flag. Pure: the service gathers the facts, this file decides.
 */

/** One row of an environment's audit log, as the fold reads it. */
export type ChangeRow = Pick<
  AuditRow,
  | 'environment'
  | 'timestamp'
  | 'event_type'
  | 'snapshot_index'
  | 'artifact_name'
  | 'fingerprint'
  | 'compliant'
>;

/** A change before its evidence: when it started, and its compliance then and at the pin. */
export interface StartedChange {
  id: string;
  environment: string;
  snapshot_index: number;
  started_at: number;
  artifact_name: string;
  fingerprint: string;
  compliant_when_started: boolean;
  compliant: boolean;
}

export const changeId = (env: string, snapshot: number, fingerprint: string) =>
  `${env}#${snapshot}:${fingerprint}`;

/**
 * The changes of one environment: each `started` row with `from ≤ timestamp <
 * to`, its compliance then, and its compliance as its later `changed` rows
 * (up to its `exited` row) left it. Rows must be in log order.
 */
export async function changesOf(
  rows: AsyncIterable<ChangeRow> | Iterable<ChangeRow>,
  period: { from: number; to: number },
): Promise<StartedChange[]> {
  const changes: StartedChange[] = [];
  const running = new Map<string, StartedChange | null>();
  for await (const row of rows) {
    if (row.event_type === 'started') {
      const inPeriod = row.timestamp >= period.from && row.timestamp < period.to;
      const change: StartedChange | null = inPeriod
        ? {
            id: changeId(row.environment, row.snapshot_index, row.fingerprint),
            environment: row.environment,
            snapshot_index: row.snapshot_index,
            started_at: row.timestamp,
            artifact_name: row.artifact_name,
            fingerprint: row.fingerprint,
            compliant_when_started: row.compliant,
            compliant: row.compliant,
          }
        : null;
      if (change) changes.push(change);
      running.set(row.fingerprint, change);
    } else if (row.event_type === 'changed') {
      const change = running.get(row.fingerprint);
      if (change) change.compliant = row.compliant;
    } else {
      running.delete(row.fingerprint);
    }
  }
  return changes;
}

/** The population's order: when each started, then where, then what. */
export function byStart(a: StartedChange, b: StartedChange): number {
  return (
    a.started_at - b.started_at ||
    compare(a.environment, b.environment) ||
    a.snapshot_index - b.snapshot_index ||
    compare(a.fingerprint, b.fingerprint)
  );
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The hex SHA-256 of the ids sorted ascending (by code unit) and joined by `\n`: checkable from the CSV alone. */
export function populationSha256(ids: string[]): string {
  return sha256([...ids].sort(compare).join('\n'));
}

/**
 * The reproducible sample: the `size` changes whose hex SHA-256 of
 * `seed + ":" + id` is smallest, in that order. Anyone holding the
 * population and the seed can draw it again.
 */
export function sampleOf<T extends { id: string }>(population: T[], seed: string, size: number): T[] {
  return population
    .map((change) => ({ change, rank: sha256(`${seed}:${change.id}`) }))
    .sort((a, b) => compare(a.rank, b.rank) || compare(a.change.id, b.change.id))
    .slice(0, size)
    .map((r) => r.change);
}

export interface Commit {
  sha1: string;
  author?: string;
  [field: string]: unknown;
}

/** An attestation as evidence of a change. */
export interface EvidenceItem {
  type: string;
  compliant: boolean;
  recorded_at: number;
  /** Pull requests only: who opened them, who approved them. */
  authors?: string[];
  approvers?: string[];
}

export interface ChangeEvidence {
  /** The trail's attestations, by name. */
  trail: Record<string, EvidenceItem>;
  /** The artifact's own attestations (on that trail), by name. */
  artifact: Record<string, EvidenceItem>;
}

export const GAP_KINDS = [
  'no_provenance',
  'non_compliant',
  'missing_attestation',
  'late_evidence',
  'self_approved',
] as const;
export type GapKind = (typeof GAP_KINDS)[number];

export interface Gap {
  kind: GapKind;
  detail: string;
}

/** What is known of a change's provenance: its first trail as recorded when it started, and that trail at the pin. */
export interface ChangeFacts {
  flow: string | null;
  trail: string | null;
  commit: Commit | null;
  evidence: ChangeEvidence;
  /** What the trail's flow template requires and the trail (at the pin) lacks, for this artifact. */
  templateMissing: string[];
  /** The attached policies' reasons when it started (absent: none attached). */
  policyReasons: string[];
}

export interface Change extends StartedChange {
  flow: string | null;
  trail: string | null;
  commit: Commit | null;
  evidence: ChangeEvidence;
  gaps: Gap[];
}

/** The `gaps=` filter: a change with at least one of these gaps (no gaps named: every change). */
export const withAnyGap =
  (gaps: GapKind[]) =>
  (change: Change): boolean =>
    !gaps.length || change.gaps.some((g) => gaps.includes(g.kind));

/** Names a person may go by in a commit's author (`Name <email>`): the name, the email and its local part. */
function identities(author: string | undefined): string[] {
  if (!author) return [];
  const email = /<([^>]+)>/.exec(author)?.[1];
  const name = author.replace(/<[^>]*>/, '').trim();
  return [
    name,
    email,
    email?.split('@')[0],
    author.includes('@') && !email ? author.split('@')[0] : undefined,
  ]
    .filter((n): n is string => !!n)
    .map((n) => n.toLowerCase());
}

/** The change with its provenance, evidence and gaps. */
export function withEvidence(change: StartedChange, facts: ChangeFacts): Change {
  const gaps: Gap[] = [];
  if (facts.trail === null) {
    gaps.push({ kind: 'no_provenance', detail: 'no trail had reported this artifact when it started' });
  }
  if (!change.compliant_when_started) {
    gaps.push({
      kind: 'non_compliant',
      detail: `not compliant when it started${change.compliant ? '; compliant at the pinned instant' : ''}`,
    });
  } else if (!change.compliant) {
    gaps.push({
      kind: 'non_compliant',
      detail: 'compliant when it started; not compliant at the pinned instant',
    });
  }
  const missing = [
    ...facts.templateMissing.map((name) => `${name}: required by the flow's template, not on the trail`),
    ...facts.policyReasons.filter((r) => / is missing$/.test(r)).map((r) => `${r} (an attached policy)`),
  ];
  for (const detail of missing) gaps.push({ kind: 'missing_attestation', detail });
  const attested = [
    ...Object.entries(facts.evidence.trail).map(([name, e]) => ({ name, on: 'trail', e })),
    ...Object.entries(facts.evidence.artifact).map(([name, e]) => ({ name, on: 'artifact', e })),
  ];
  for (const { name, on, e } of attested) {
    if (e.recorded_at > change.started_at) {
      gaps.push({
        kind: 'late_evidence',
        detail:
          `${on} attestation ${name} recorded at ${isoMicros(e.recorded_at)}, after the artifact started ` +
          `running in ${change.environment} at ${isoMicros(change.started_at)}`,
      });
    }
  }
  const committer = identities(facts.commit?.author);
  for (const { name, e } of attested) {
    const authors = (e.authors ?? []).map((a) => a.toLowerCase());
    for (const approver of e.approvers ?? []) {
      const who = approver.toLowerCase();
      if (authors.includes(who)) {
        gaps.push({ kind: 'self_approved', detail: `${name}: ${approver} approved their own pull request` });
      } else if (committer.includes(who)) {
        gaps.push({ kind: 'self_approved', detail: `${name}: ${approver} approved and authored the commit` });
      }
    }
  }
  return {
    ...change,
    flow: facts.flow,
    trail: facts.trail,
    commit: facts.commit,
    evidence: facts.evidence,
    gaps,
  };
}
