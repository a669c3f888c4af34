import type { Decider, DomainEvent, TagChange, Tags, TagsChanged } from '#des/kernel';
import { decideTagChange, DomainError } from '#des/kernel';
import type { Provenance, RunningArtifact } from './k8s-report';

export const ENVIRONMENT_TYPES = [
  'K8S',
  'ECS',
  'S3',
  'lambda',
  'server',
  'docker',
  'azure-apps',
  'cloud-run',
  'logical',
] as const;
export type EnvironmentType = (typeof ENVIRONMENT_TYPES)[number];

export const environmentStream = (org: string, name: string) => `environment-${org}/${name}`;

/** An artifact as a snapshot entry shows it, with the snapshot it started in. */
export interface SnapshotArtifact extends RunningArtifact {
  since_snapshot: number;
}

export interface SnapshotEntry {
  /** The trails that reported the artifact, as known when the snapshot was made. */
  provenance?: Provenance[];
  /** Its compliance then: by the attached policies, or (none attached) every trail that reported it compliant. */
  compliant?: boolean;
  /** The attached policies' verdict and its reasons (absent when no policy is attached). */
  policy_decision?: { compliant: boolean; reasons: string[] };
  event_type: 'started' | 'exited' | 'changed';
  fingerprint: string;
  artifact_name: string;
  instances: number;
  since_snapshot: number;
}

export type EnvironmentEvent =
  | DomainEvent<
      'environment_created',
      {
        name: string;
        type: EnvironmentType;
        description: string;
        included_environments: string[];
        /** A name used again after a rename: its first snapshot's number (absent: 1). */
        first_snapshot?: number;
      }
    >
  | DomainEvent<
      'environment_updated',
      { type: EnvironmentType; description: string; included_environments: string[] }
    >
  | DomainEvent<'report_received', { name: string; pods: number }>
  | DomainEvent<
      'snapshot_created',
      {
        name: string;
        index: number;
        pods: number;
        artifacts: SnapshotArtifact[];
        entries: SnapshotEntry[];
        /** The environment's compliance with this snapshot, and before it (absent on older events). */
        state?: boolean;
        previous_state?: boolean;
      }
    >
  | DomainEvent<
      'compliance_changed',
      {
        name: string;
        /** The snapshot whose running set was re-assessed (its record stays as the report made it). */
        snapshot_index: number;
        state: boolean;
        previous_state: boolean;
        cause: ReassessCause;
        /** A `changed` entry per artifact whose compliance or provenance the re-assessment changed. */
        entries: SnapshotEntry[];
      }
    >
  | DomainEvent<'environment_archived', { name: string }>
  | DomainEvent<'environment_unarchived', { name: string }>
  /** On the old name's stream: the environment goes on under `new_name` (that stream's `environment_renamed_from`). */
  | DomainEvent<'environment_renamed', { name: string; new_name: string }>
  /** First event of the new name's stream (or of a new life of it): what the environment was under `previous_name`. */
  | DomainEvent<'environment_renamed_from', RenamedFrom>
  | DomainEvent<'policies_attached', { policy_names: string[]; policies: string[] }>
  | DomainEvent<'policies_detached', { policy_names: string[]; policies: string[] }>
  | TagsChanged;

/** What a renamed environment carries to its new name: all a decision under the new name needs. */
export type RenamedFrom = {
  name: string;
  previous_name: string;
  type: EnvironmentType;
  description: string;
  included_environments: string[];
  /** The last snapshot's index: the new name's snapshots go on numbering after it. */
  last_index: number;
  running: SnapshotArtifact[];
  tags: Tags;
  policies: string[];
};

/** What made the running set be re-assessed: an event, and what it changed. */
export interface ReassessCause {
  event_type: string;
  /** `policy <name>`, `trail <flow>/<trail>`, `flow <name>` or `environment <name>`. */
  subject: string;
}

export type EnvironmentCommand =
  | { kind: 'put_environment'; name: string; type: EnvironmentType; description: string; included: string[] }
  | { kind: 'report'; name: string; reportType: EnvironmentType; artifacts: RunningArtifact[]; pods: number }
  | { kind: 'change_tags'; name: string; change: TagChange }
  /**
   * The running set of snapshot `snapshotIndex`, assessed again as the read
   * models know it now; a stale index (a newer snapshot exists) changes nothing.
   */
  | {
      kind: 'reassess';
      name: string;
      snapshotIndex: number;
      artifacts: RunningArtifact[];
      cause: ReassessCause;
    }
  /** Attach or detach environment policies (their existence is checked by the caller). */
  | { kind: 'attach_policies' | 'detach_policies'; name: string; policies: string[] }
  | { kind: 'archive' | 'unarchive'; name: string }
  /** Close this name: the environment goes on as `newName` (whose stream then takes `rename_in`). */
  | { kind: 'rename_out'; name: string; newName: string }
  | { kind: 'rename_in'; name: string; from: RenamedFrom }
  /** Add a physical environment (checked by the caller) to this logical one. */
  | { kind: 'join'; name: string; physical: string }
  /** A member of this logical environment was renamed. */
  | { kind: 'rename_member'; name: string; from: string; to: string };

export interface EnvironmentState {
  exists: boolean;
  type: EnvironmentType;
  description: string;
  included: string[];
  lastIndex: number;
  running: SnapshotArtifact[];
  tags: Tags;
  policies: string[];
  archived: boolean;
  /** Set when this name was given up by a rename (the name may then be used again). */
  renamedTo?: string;
}

/**
 * An environment is compliant iff every running artifact is: by the attached
 * policies, or with none attached by its own trails (no provenance: not
 * compliant); one that runs nothing is compliant.
 */
export const environmentState = (running: { compliant?: boolean | null }[]) =>
  running.every((a) => a.compliant === true);

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
const provenanceKeys = (a: RunningArtifact) => (a.provenance ?? []).map((p) => `${p.flow}/${p.trail}`).sort();

const INITIAL: EnvironmentState = {
  exists: false,
  type: 'K8S',
  description: '',
  included: [],
  lastIndex: 0,
  running: [],
  tags: {},
  policies: [],
  archived: false,
};

export const environmentDecider: Decider<EnvironmentCommand, EnvironmentState, EnvironmentEvent> = {
  initialState: INITIAL,

  evolve(state, event) {
    switch (event.type) {
      case 'environment_created':
        // A name given up by a rename starts a new environment; its snapshot numbers go on (ids stay unique).
        return {
          ...INITIAL,
          lastIndex: state.lastIndex,
          exists: true,
          type: event.data.type,
          description: event.data.description,
          included: event.data.included_environments,
        };
      case 'environment_updated':
        return {
          ...state,
          exists: true,
          type: event.data.type,
          description: event.data.description,
          included: event.data.included_environments,
        };
      case 'report_received':
        return state;
      case 'snapshot_created':
        return { ...state, lastIndex: event.data.index, running: event.data.artifacts };
      case 'compliance_changed': {
        const changed = new Map(event.data.entries.map((e) => [e.fingerprint, e]));
        return {
          ...state,
          running: state.running.map((a) => {
            const e = changed.get(a.fingerprint);
            return e
              ? { ...a, provenance: e.provenance, compliant: e.compliant, policy_decision: e.policy_decision }
              : a;
          }),
        };
      }
      case 'tags_changed':
        return { ...state, tags: event.data.tags };
      case 'policies_attached':
      case 'policies_detached':
        return { ...state, policies: event.data.policies };
      case 'environment_archived':
        return { ...state, archived: true };
      case 'environment_unarchived':
        return { ...state, archived: false };
      case 'environment_renamed':
        return { ...state, exists: false, renamedTo: event.data.new_name };
      case 'environment_renamed_from': {
        const d = event.data;
        return {
          ...INITIAL,
          exists: true,
          type: d.type,
          description: d.description,
          included: d.included_environments,
          lastIndex: Math.max(state.lastIndex, d.last_index),
          running: d.running,
          tags: d.tags,
          policies: d.policies,
        };
      }
    }
  },

  decide(command, state) {
    switch (command.kind) {
      case 'change_tags':
        if (!state.exists) throw new DomainError('not_found', 'Resource not found');
        return decideTagChange(state.tags, command.change);
      case 'reassess': {
        if (!state.exists || command.snapshotIndex !== state.lastIndex) return [];
        const assessed = new Map(command.artifacts.map((a) => [a.fingerprint, a]));
        const entries = state.running.flatMap((before) => {
          const now = assessed.get(before.fingerprint);
          if (!now) return [];
          const same =
            (before.compliant === true) === (now.compliant === true) &&
            sameSet(provenanceKeys(before), provenanceKeys(now));
          if (same) return [];
          const { provenance, compliant, policy_decision } = now;
          return [entry('changed', { ...before, provenance, compliant, policy_decision })];
        });
        if (entries.length === 0) return [];
        const changed = new Map(entries.map((e) => [e.fingerprint, e]));
        return [
          {
            type: 'compliance_changed',
            data: {
              name: command.name,
              snapshot_index: state.lastIndex,
              state: environmentState(state.running.map((a) => changed.get(a.fingerprint) ?? a)),
              previous_state: environmentState(state.running),
              cause: command.cause,
              entries,
            },
          },
        ];
      }
      case 'attach_policies':
      case 'detach_policies': {
        if (!state.exists) throw new DomainError('not_found', 'Environment not found');
        const attach = command.kind === 'attach_policies';
        const names = [...new Set(command.policies)].filter((p) => state.policies.includes(p) !== attach);
        if (names.length === 0) return [];
        const policies = attach
          ? [...state.policies, ...names].sort()
          : state.policies.filter((p) => !names.includes(p));
        return [
          {
            type: attach ? 'policies_attached' : 'policies_detached',
            data: { policy_names: names, policies },
          },
        ];
      }
      case 'archive':
      case 'unarchive': {
        if (!state.exists) throw notFound(command.name);
        const archive = command.kind === 'archive';
        if (state.archived === archive) return [];
        return [
          { type: archive ? 'environment_archived' : 'environment_unarchived', data: { name: command.name } },
        ];
      }
      case 'rename_out':
        if (!state.exists) throw notFound(command.name);
        if (command.newName === command.name) return [];
        return [{ type: 'environment_renamed', data: { name: command.name, new_name: command.newName } }];
      case 'rename_in':
        if (state.exists) {
          throw new DomainError('conflict', `An environment named '${command.name}' already exists`);
        }
        return [{ type: 'environment_renamed_from', data: { ...command.from, name: command.name } }];
      case 'join': {
        if (!state.exists) throw notFound(command.name);
        if (state.type !== 'logical') {
          throw new DomainError('invalid', `Environment '${command.name}' is not a logical environment`);
        }
        if (state.included.includes(command.physical)) return [];
        return [
          {
            type: 'environment_updated',
            data: {
              type: state.type,
              description: state.description,
              included_environments: [...state.included, command.physical].sort(),
            },
          },
        ];
      }
      case 'rename_member': {
        if (!state.exists || !state.included.includes(command.from)) return [];
        const included = [
          ...new Set(state.included.map((m) => (m === command.from ? command.to : m))),
        ].sort();
        return [
          {
            type: 'environment_updated',
            data: { type: state.type, description: state.description, included_environments: included },
          },
        ];
      }
      case 'put_environment': {
        const data = {
          type: command.type,
          description: command.description,
          included_environments: command.included,
        };
        if (!state.exists) {
          const first = state.lastIndex > 0 ? { first_snapshot: state.lastIndex + 1 } : {};
          return [{ type: 'environment_created', data: { name: command.name, ...data, ...first } }];
        }
        // Creating an archived environment again restores it.
        const restored: EnvironmentEvent[] = state.archived
          ? [{ type: 'environment_unarchived', data: { name: command.name } }]
          : [];
        const unchanged =
          state.type === command.type &&
          state.description === command.description &&
          sameSet(state.included, command.included);
        if (unchanged) return restored;
        if (state.lastIndex > 0 && (command.type === 'logical') !== (state.type === 'logical')) {
          throw new DomainError('invalid', 'Input payload validation failed', {
            type: 'an environment with snapshots cannot change between logical and physical',
          });
        }
        return [...restored, { type: 'environment_updated', data }];
      }
      case 'report': {
        if (!state.exists) throw new DomainError('not_found', 'Environment not found');
        if (state.archived) {
          throw new DomainError('invalid', `Environment '${command.name}' is archived and takes no reports`);
        }
        if (state.type !== command.reportType) {
          throw new DomainError('invalid', 'Invalid report data', {
            environment:
              state.type === 'logical'
                ? 'a logical environment only groups others and takes no reports'
                : `the environment is of type ${state.type}, not ${command.reportType}`,
          });
        }
        const before = state.running.map((a) => a.fingerprint);
        const now = command.artifacts.map((a) => a.fingerprint);
        if (sameSet(before, now))
          return [{ type: 'report_received', data: { name: command.name, pods: command.pods } }];

        const index = state.lastIndex + 1;
        const previous = new Map(state.running.map((a) => [a.fingerprint, a]));
        const current = new Set(now);
        const artifacts: SnapshotArtifact[] = command.artifacts.map((a) => ({
          ...a,
          since_snapshot: previous.get(a.fingerprint)?.since_snapshot ?? index,
        }));
        const entries: SnapshotEntry[] = [
          ...artifacts.filter((a) => !previous.has(a.fingerprint)).map((a) => entry('started', a)),
          ...state.running.filter((a) => !current.has(a.fingerprint)).map((a) => entry('exited', a)),
          // Still running, but its provenance or compliance is not what the last snapshot recorded.
          ...artifacts
            .filter((a) => {
              const before = previous.get(a.fingerprint);
              if (!before) return false;
              const compliance = (before.compliant ?? null) !== (a.compliant ?? null);
              return compliance || !sameSet(provenanceKeys(before), provenanceKeys(a));
            })
            .map((a) => entry('changed', a)),
        ];
        return [
          {
            type: 'snapshot_created',
            data: {
              name: command.name,
              index,
              pods: command.pods,
              artifacts,
              entries,
              state: environmentState(artifacts),
              previous_state: environmentState(state.running),
            },
          },
        ];
      }
    }
  },
};

const notFound = (name: string) => new DomainError('not_found', `Environment '${name}' not found`);

function entry(event_type: SnapshotEntry['event_type'], a: SnapshotArtifact): SnapshotEntry {
  return {
    event_type,
    fingerprint: a.fingerprint,
    artifact_name: a.artifact_name,
    instances: a.instances,
    since_snapshot: a.since_snapshot,
    compliant: a.compliant === true,
    ...(a.provenance?.length ? { provenance: a.provenance } : {}),
    ...(a.policy_decision ? { policy_decision: a.policy_decision } : {}),
  };
}
