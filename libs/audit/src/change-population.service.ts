import { Inject, Injectable } from '@nestjs/common';
import { type EventStore, TimeSlice } from '#des/event-store';
import { auditRowsBetween, environmentKinds, snapshotsNumbered } from '#des/environments';
import { ApiError, EVENT_STORE, periodOf, pinnedNow, READ_STORE } from '#des/platform';
import { type Doc, docReads, type ReadStore } from '#des/read-store';
import { TrailTimeMachine, trailEvidence } from '#des/trails';
import {
  byStart,
  type Change,
  type ChangeFacts,
  changesOf,
  type Commit,
  type StartedChange,
  withEvidence,
} from './change-population';

async function* withTurns<T>(items: AsyncIterable<T>, slice: TimeSlice): AsyncIterable<T> {
  for await (const item of items) {
    if (slice.due) await slice.turn();
    yield item;
  }
}

/** The pin and the period a population is drawn over, resolved. */
export interface PopulationScope {
  at: number;
  from: number;
  to: number;
  environments: string[];
}

interface Provenance {
  flow: string;
  trail: string;
  commit?: Commit | null;
}

interface SnapshotArtifact {
  fingerprint: string;
  provenance?: Provenance[];
  policy_decision?: { compliant: boolean; reasons: string[] };
}

/** A snapshot's artifacts by fingerprint (the first of each, as a scan would find it), indexed once per snapshot. */
function byFingerprint(
  indexed: Map<Doc, Map<string, SnapshotArtifact>>,
  snapshot: Doc,
): Map<string, SnapshotArtifact> {
  let index = indexed.get(snapshot);
  if (!index) {
    index = new Map();
    for (const a of (snapshot.artifacts ?? []) as SnapshotArtifact[])
      if (!index.has(a.fingerprint)) index.set(a.fingerprint, a);
    indexed.set(snapshot, index);
  }
  return index;
}

/** Trails folded at once while evidence is gathered. */
const TRAIL_READS_IN_FLIGHT = 8;

/**
 * Builds the change population from the environments' audit logs (what
 * started, when, its compliance then and at the pin), and each change's
 * evidence from its trail as the trails feature shows it at the pin.
 */
@Injectable()
export class ChangePopulation {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    private readonly trails: TrailTimeMachine,
  ) {}

  /** The pin, the period and the environments of a query; an unknown environment is a 404 naming it. */
  async scope(
    org: string,
    query: { at?: number; from?: number; to?: number; environments?: string },
  ): Promise<PopulationScope> {
    const at = query.at ?? (await pinnedNow(this.events));
    const { from, to } = periodOf(query.from, query.to ?? at);
    return { at, from, to, environments: await this.environments(org, query.environments) };
  }

  private async environments(org: string, names: string | undefined): Promise<string[]> {
    const known = await environmentKinds(docReads(this.reads), org);
    if (names === undefined) return known.filter((e) => e.type !== 'logical').map((e) => e.name);
    const asked = [...new Set(names.split(','))];
    const unknown = asked.filter((name) => !known.some((e) => e.name === name));
    if (unknown.length) {
      throw new ApiError(404, 'Environment not found', {
        environments: unknown.map((name) => `'${name}' does not exist`).join('; '),
      });
    }
    const chosen = asked.flatMap((name) => {
      const env = known.find((e) => e.name === name)!;
      return env.type === 'logical' ? env.included_environments : [name];
    });
    return [...new Set(chosen)].sort();
  }

  /** Every change of the scope, in the population's order (no evidence yet). */
  async started(org: string, scope: PopulationScope): Promise<StartedChange[]> {
    // Environments one after another, giving the event loop a turn every 10 ms of rows: a long
    // history is one organization's wait, not everyone's (ADR 0008).
    const slice = new TimeSlice();
    const perEnvironment: StartedChange[][] = [];
    for (const env of scope.environments) {
      const rows = auditRowsBetween(this.reads, org, env, { from: scope.from, until: scope.at });
      perEnvironment.push(await changesOf(withTurns(rows, slice), scope));
    }
    return perEnvironment.flat().sort(byStart);
  }

  /** These changes with their provenance (as recorded when each started), evidence and gaps (at the pin). */
  async withEvidence(org: string, changes: StartedChange[], at: number): Promise<Change[]> {
    // A chunk of changes is thousands of rows over snapshots and trails of thousands of artifacts:
    // each is looked up by fingerprint (never scanned per change), and the loop gets a turn every
    // 10 ms, so one organization's population is its own wait (ADR 0043).
    const slice = new TimeSlice();
    const snapshots = await this.snapshotsOf(org, changes);
    const artifactsOf = new Map<Doc, Map<string, SnapshotArtifact>>();
    const recorded: { origin: Provenance | null; reasons: string[] }[] = [];
    for (const c of changes) {
      if (slice.due) await slice.turn();
      const snapshot = snapshots.get(`${c.environment}#${c.snapshot_index}`);
      const artifact = snapshot ? byFingerprint(artifactsOf, snapshot).get(c.fingerprint) : undefined;
      recorded.push({
        origin: artifact?.provenance?.[0] ?? null,
        reasons: artifact?.policy_decision?.reasons ?? [],
      });
    }
    const trails = await this.trailsAt(
      org,
      recorded.flatMap((r) => (r.origin ? [r.origin] : [])),
      at,
    );
    const evidenceOf = new Map<string, ReturnType<typeof trailEvidence>>();
    const noEvidence: ReturnType<typeof trailEvidence> = () => ({ trail: {}, artifact: {}, missing: [] });
    const answers: Change[] = [];
    for (const [i, change] of changes.entries()) {
      if (slice.due) await slice.turn();
      const { origin, reasons } = recorded[i];
      const key = origin ? `${origin.flow}/${origin.trail}` : undefined;
      const shown = key ? trails.get(key) : undefined;
      let evidence = noEvidence;
      if (key && shown?.view) {
        const view = shown.view;
        evidence = evidenceOf.get(key) ?? trailEvidence(view, shown.template);
        evidenceOf.set(key, evidence);
      }
      const found = evidence(change.fingerprint);
      const facts: ChangeFacts = {
        flow: origin?.flow ?? null,
        trail: origin?.trail ?? null,
        commit: origin?.commit ?? null,
        evidence: { trail: found.trail, artifact: found.artifact },
        templateMissing: found.missing,
        policyReasons: reasons,
      };
      answers.push(withEvidence(change, facts));
    }
    return answers;
  }

  /** The log positions of the reports that started `changes` (a snapshot projected before they were kept has none). */
  async reportPositions(org: string, changes: StartedChange[]): Promise<number[]> {
    const snapshots = await this.snapshotsOf(org, changes);
    return [...snapshots.values()].flatMap((s) => (typeof s.position === 'number' ? [s.position] : []));
  }

  private async snapshotsOf(org: string, changes: StartedChange[]): Promise<Map<string, Doc>> {
    const wanted = new Map<string, Set<number>>();
    for (const c of changes) {
      const set = wanted.get(c.environment) ?? new Set<number>();
      set.add(c.snapshot_index);
      wanted.set(c.environment, set);
    }
    const found = new Map<string, Doc>();
    for (const [env, indexes] of wanted) {
      for (const doc of await snapshotsNumbered(docReads(this.reads), org, env, [...indexes])) {
        found.set(`${env}#${doc.index as number}`, doc);
      }
    }
    return found;
  }

  /** Each trail as it was at the pin, folded by the trails feature's time machine, a few at a time. */
  private async trailsAt(org: string, origins: Provenance[], at: number) {
    const keys = [...new Set(origins.map((o) => `${o.flow}/${o.trail}`))];
    const shown = new Map<string, Awaited<ReturnType<TrailTimeMachine['at']>>>();
    for (let i = 0; i < keys.length; i += TRAIL_READS_IN_FLIGHT) {
      await Promise.all(
        keys.slice(i, i + TRAIL_READS_IN_FLIGHT).map(async (key) => {
          const [flow, trail] = key.split('/');
          shown.set(key, await this.trails.at(org, flow, trail, at));
        }),
      );
    }
    return shown;
  }
}
