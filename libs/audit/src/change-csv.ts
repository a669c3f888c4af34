import { isoMicros } from '#des/kernel';
import { safeCell } from '#des/platform';
import type { Change, EvidenceItem } from './change-population';

export const CHANGE_COLUMNS = [
  'id',
  'environment',
  'snapshot_index',
  'started_at',
  'started_at_iso',
  'artifact_name',
  'fingerprint',
  'flow',
  'trail',
  'commit',
  'compliant_when_started',
  'compliant',
  'evidence',
  'gaps',
] as const;

const item = (on: string, name: string, e: EvidenceItem) =>
  `${on}:${name}=${e.type}:${e.compliant ? 'compliant' : 'non-compliant'}@${isoMicros(e.recorded_at)}` +
  (e.authors ? ` authors ${e.authors.join('|') || '-'}` : '') +
  (e.approvers ? ` approvers ${e.approvers.join('|') || '-'}` : '');

/** A change as one CSV row: evidence and gaps as `; `-separated text, every cell safe for spreadsheets. */
export function changeRow(c: Change): (string | number)[] {
  const evidence = [
    ...Object.entries(c.evidence.trail).map(([name, e]) => item('trail', name, e)),
    ...Object.entries(c.evidence.artifact).map(([name, e]) => item('artifact', name, e)),
  ].join('; ');
  const cells: Record<(typeof CHANGE_COLUMNS)[number], unknown> = {
    id: c.id,
    environment: c.environment,
    snapshot_index: c.snapshot_index,
    started_at: c.started_at,
    started_at_iso: isoMicros(c.started_at),
    artifact_name: c.artifact_name,
    fingerprint: c.fingerprint,
    flow: c.flow,
    trail: c.trail,
    commit: c.commit?.sha1 ?? null,
    compliant_when_started: c.compliant_when_started,
    compliant: c.compliant,
    evidence,
    gaps: c.gaps.map((g) => `${g.kind}: ${g.detail}`).join('; '),
  };
  return CHANGE_COLUMNS.map((column) => safeCell(cells[column]));
}
