import type { EnvironmentEvent, SnapshotEntry } from '#des/environments';
import type { Trigger } from './action.decider';

/** Something an environment event tells that an action may be triggered by. */
export interface Notice {
  /** Distinguishes the notices of one event (the delivery id derives from it). */
  key: string;
  trigger: Trigger;
  /** Flows of the artifact (empty for the environment's own notices, which every action gets). */
  flows: string[];
  /** The webhook payload (DESIGN §12): what happened, to what, in which snapshot. */
  payload: Record<string, unknown>;
}

const EVENT_TYPES: Record<Trigger, string> = {
  ON_STARTED_ARTIFACT: 'ARTIFACT_STARTED',
  ON_EXITED_ARTIFACT: 'ARTIFACT_EXITED',
  ON_CHANGED_ARTIFACT: 'ARTIFACT_CHANGED',
  ON_NON_COMPLIANT_ENV: 'ENVIRONMENT_NON_COMPLIANT',
  ON_COMPLIANT_ENV: 'ENVIRONMENT_COMPLIANT',
};
const ENTRY_TRIGGERS: Record<SnapshotEntry['event_type'], Trigger> = {
  started: 'ON_STARTED_ARTIFACT',
  exited: 'ON_EXITED_ARTIFACT',
  changed: 'ON_CHANGED_ARTIFACT',
};

const status = (compliant: boolean | undefined) => (compliant ? 'compliant' : 'non-compliant');

function artifactOf(entry: SnapshotEntry) {
  return {
    name: entry.artifact_name,
    fingerprint: entry.fingerprint,
    instances: entry.instances,
    status: status(entry.compliant),
    provenance: (entry.provenance ?? []).map((p) => ({
      flow: p.flow,
      trail: p.trail,
      commit: p.commit?.sha1 ?? null,
      commit_url: p.commit?.url ?? null,
      repo: p.repo?.name ?? null,
    })),
    ...(entry.policy_decision ? { policy_reasons: entry.policy_decision.reasons } : {}),
  };
}

function describe(entry: SnapshotEntry, environment: string, reassessed: boolean): string {
  const n = `${entry.instances} ${entry.instances === 1 ? 'instance' : 'instances'}`;
  switch (entry.event_type) {
    case 'started':
      return `${entry.artifact_name}: ${n} started running in ${environment}`;
    case 'exited':
      return `${entry.artifact_name}: ${n} stopped running in ${environment}`;
    case 'changed':
      return reassessed
        ? `${entry.artifact_name} in ${environment} is now ${status(entry.compliant)}`
        : `${entry.artifact_name} in ${environment} changed provenance or compliance`;
  }
}

/**
 * The notices of one environment event: a started, exited or changed entry
 * each, and the environment's own when its compliance flipped. Pure: the
 * event alone decides them, so a replay finds the same ones.
 */
export function environmentNotices(
  org: string,
  environment: string,
  event: EnvironmentEvent,
  recordedAtSeconds: number,
): Notice[] {
  let entries: SnapshotEntry[];
  let index: number;
  let state: boolean | undefined;
  let previous: boolean | undefined;
  if (event.type === 'snapshot_created') {
    ({ entries, index, state, previous_state: previous } = event.data);
  } else if (event.type === 'compliance_changed') {
    ({ entries, snapshot_index: index, state, previous_state: previous } = event.data);
  } else {
    return [];
  }
  const reassessed = event.type === 'compliance_changed';
  const snapshot = {
    index,
    status: state === undefined ? null : status(state),
    api_url: `/api/v2/environments/${org}/${environment}/snapshots/${index}`,
  };
  const base = (trigger: Trigger, description: string) => ({
    version: '1.0',
    timestamp: recordedAtSeconds,
    org,
    environment,
    event_type: EVENT_TYPES[trigger],
    description,
    snapshot,
  });
  const notices: Notice[] = entries.map((entry, i) => {
    const trigger = ENTRY_TRIGGERS[entry.event_type];
    return {
      key: `${i}:${entry.event_type}:${entry.fingerprint}`,
      trigger,
      flows: [...new Set((entry.provenance ?? []).map((p) => p.flow))],
      payload: { ...base(trigger, describe(entry, environment, reassessed)), artifact: artifactOf(entry) },
    };
  });
  if (state !== undefined && previous !== undefined && state !== previous) {
    const trigger: Trigger = state ? 'ON_COMPLIANT_ENV' : 'ON_NON_COMPLIANT_ENV';
    notices.push({
      key: `environment:${state ? 'compliant' : 'non-compliant'}`,
      trigger,
      flows: [],
      payload: { ...base(trigger, `${environment} is now ${status(state)}`), artifact: null },
    });
  }
  return notices;
}

/** The same facts as a Slack incoming-webhook message. */
export function slackMessage(payload: Record<string, unknown>): Record<string, unknown> {
  const artifact = payload.artifact as { name: string; fingerprint: string; status: string } | null;
  const snapshot = payload.snapshot as { index: number; status: string | null };
  const fields = [
    `*Environment:* ${String(payload.environment)}`,
    `*Event:* ${String(payload.event_type)}`,
    `*Snapshot:* #${snapshot.index}${snapshot.status ? ` (${snapshot.status})` : ''}`,
    ...(artifact
      ? [`*Artifact:* ${artifact.name}`, `*Fingerprint:* ${artifact.fingerprint.slice(0, 12)}…`]
      : []),
  ];
  return {
    text: String(payload.description),
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `*${escapeSlack(String(payload.description))}*` } },
      { type: 'section', fields: fields.map((text) => ({ type: 'mrkdwn', text: escapeSlack(text) })) },
    ],
  };
}

/** Slack's three control characters, escaped as its docs ask. */
const escapeSlack = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
