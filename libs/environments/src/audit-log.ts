import { isoMicros } from '#des/kernel';
import { safeCell } from '#des/platform';
import type { Filter } from '#des/read-store';
import type { AuditLogQuery } from './environments.dto';

export const AUDIT_COLUMNS = [
  'timestamp',
  /** The same instant as ISO-8601 UTC, to the microsecond. */
  'timestamp_iso',
  'event_type',
  'environment',
  'snapshot_index',
  'artifact_name',
  'fingerprint',
  'instances',
  'flow_names',
  'trail_names',
  'repo_names',
  'commit',
  'compliant',
  'description',
] as const;

export const NO_PROVENANCE = 'no provenance';

const list = (value: string | undefined) =>
  value
    ?.split(',')
    .map((v) => v.trim())
    .filter(Boolean);

/** The read-model filter for an audit-log query. */
export function auditFilter(org: string, environment: string, q: AuditLogQuery): Filter {
  const filter: Filter = { org, environment };
  const time: Record<string, number> = {};
  if (q.from_timestamp !== undefined) time.$gte = q.from_timestamp;
  if (q.to_timestamp !== undefined) time.$lte = q.to_timestamp;
  if (Object.keys(time).length) filter.timestamp = time;
  const types = list(q.event_types);
  if (types?.length) filter.event_type = { $in: types };
  const flows = list(q.flow_names);
  const and: Filter[] = [];
  if (flows?.length) {
    const named = flows.filter((f) => f !== NO_PROVENANCE);
    const any: Filter[] = [];
    if (named.length) any.push({ flow_names: { $in: named } });
    if (flows.includes(NO_PROVENANCE)) any.push({ flow_names: [] });
    and.push({ $or: any });
  }
  const repos = list(q.repo_names);
  if (repos?.length) and.push({ repo_names: { $in: repos } });
  if (and.length) filter.$and = and;
  return filter;
}

export function csvRow(doc: Record<string, unknown>): (string | number)[] {
  const iso = typeof doc.timestamp === 'number' ? isoMicros(doc.timestamp) : '';
  return AUDIT_COLUMNS.map((column) => (column === 'timestamp_iso' ? iso : safeCell(doc[column])));
}
