import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProperty,
  ApiPropertyOptional,
  ApiTags,
} from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches } from 'class-validator';
import {
  environmentNamed,
  environmentsProjection,
  parseSnapshotRef,
  snapshotIndex,
  snapshotInterval,
  SNAPSHOT_INTERVAL,
  SNAPSHOT_INTERVAL_MESSAGE,
  snapshotNamed,
  snapshotView,
  snapshotsBetween,
  snapshotsNumbered,
} from '#des/environments';
import { ApiError, PageQuery, READ_STORE, ReadModelsAt, Requires } from '#des/platform';
import { type Doc, docReads, type ReadStore } from '#des/read-store';
import { provenanceOf } from './artifact-provenance';
import {
  fromKosliRef,
  KOSLI_SNAPSHOT_REF_PATTERN,
  SNAPPISH_PATTERN,
  splitSnappish,
} from './kosli-snapshot-ref';
import {
  type KosliDiffArtifact,
  KosliSnapshot,
  type KosliSnapshotArtifact,
  KosliSnapshotDiff,
  KosliSnapshotSummary,
} from './kosli.dto';

class SnapshotsQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'Snapshots: `N`, `N..M`, or empty for all' })
  @IsOptional()
  @IsString()
  @Matches(SNAPSHOT_INTERVAL, { message: SNAPSHOT_INTERVAL_MESSAGE })
  interval?: string;

  @ApiPropertyOptional({ description: 'true: oldest first' })
  @IsOptional()
  @IsIn(['true', 'false'])
  reverse?: string;
}

const SNAPPISH = {
  description: 'env, env#N, env~N or env@{…}: an environment, and a snapshot of it (the latest if none)',
  pattern: SNAPPISH_PATTERN,
};

class DiffQuery {
  @ApiProperty(SNAPPISH) @IsString() @Matches(new RegExp(SNAPPISH_PATTERN)) snappish1!: string;
  @ApiProperty(SNAPPISH) @IsString() @Matches(new RegExp(SNAPPISH_PATTERN)) snappish2!: string;
}

interface SnapshotArtifact {
  fingerprint: string;
  artifact_name: string;
  instances: number;
  pods: { pod: string; namespace: string; created_at: number }[];
  since_snapshot: number;
}

const now = () => Date.now() / 1000;

/**
 * Snapshots as the Kosli CLI reads them (`list/get/assert snapshot`,
 * `diff snapshots`): `/snapshots/{org}/{env}[/{ref}]` and `/env-diff/{org}`.
 * The spec's own snapshot routes (under /environments) keep their shapes.
 */
@ApiTags('kosli cli')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller()
export class SnapshotsController {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly history: ReadModelsAt,
  ) {}

  @Get('snapshots/:org/:env')
  @ApiOperation({
    operationId: 'listKosliSnapshots',
    summary: "List an environment's snapshots for the Kosli CLI",
  })
  @Requires('reader')
  @ApiOkResponse({
    type: [KosliSnapshotSummary],
    description: '[{index, from, to (0: in force), duration, compliant}]',
  })
  async list(
    @Param('org') org: string,
    @Param('env') env: string,
    @Query() query: SnapshotsQuery,
  ): Promise<KosliSnapshotSummary[]> {
    const environment = await this.environment(this.reads, org, env);
    const latest = (environment.latest_snapshot as number | undefined) ?? 0;
    // A renamed environment's snapshots before the rename are its old name's (docs/adr/0029).
    const first = (environment.first_snapshot as number | undefined) ?? 1;
    const asked = query.interval ? snapshotInterval(query.interval, latest) : { from: first, to: latest };
    const { from, to } = { from: Math.max(asked.from, first), to: asked.to };
    const oldestFirst = query.reverse === 'true';
    const perPage = query.per_page ?? 15;
    const skip = ((query.page ?? 1) - 1) * perPage;
    const docs = await snapshotsBetween(
      this.reads,
      org,
      env,
      { from, to, oldestFirst },
      { skip, limit: perPage },
    );
    const next = await snapshotsNumbered(
      docReads(this.reads),
      org,
      env,
      docs.map((d) => (d.index as number) + 1),
    );
    const followedAt = new Map(next.map((d) => [(d.index as number) - 1, d.timestamp as number]));
    return docs.map((d): KosliSnapshotSummary => {
      const from = d.timestamp as number;
      const to = followedAt.get(d.index as number) ?? 0;
      return {
        index: d.index as number,
        from,
        to,
        duration: (to || now()) - from,
        compliant: d.compliant as boolean,
      };
    });
  }

  @Get('snapshots/:org/:env/:ref')
  @ApiOperation({ operationId: 'getKosliSnapshot', summary: 'Read a snapshot for the Kosli CLI' })
  @ApiParam({ name: 'ref', schema: { type: 'string', pattern: KOSLI_SNAPSHOT_REF_PATTERN } })
  @Requires('reader')
  @ApiOkResponse({
    type: KosliSnapshot,
    description: 'The snapshot, its artifacts with their pods by name, flow and compliance',
  })
  async read(
    @Param('org') org: string,
    @Param('env') env: string,
    @Param('ref') ref: string,
  ): Promise<KosliSnapshot> {
    const { environment, snapshot, reads } = await this.snapshot(org, env, ref);
    return this.kosliSnapshot(reads, org, environment, snapshot);
  }

  @Get('env-diff/:org')
  @ApiOperation({ operationId: 'diffKosliSnapshots', summary: 'Compare two snapshots for the Kosli CLI' })
  @Requires('reader')
  @ApiOkResponse({
    type: KosliSnapshotDiff,
    description: '{snappish1, snappish2, changed, not-changed}: {snapshot_id, artifacts}',
  })
  async diff(@Param('org') org: string, @Query() query: DiffQuery): Promise<KosliSnapshotDiff> {
    const [one, two] = await Promise.all(
      [query.snappish1, query.snappish2].map(async (snappish) => {
        const { env, ref } = splitSnappish(snappish);
        const found = await this.snapshot(org, env, ref, snappish);
        return { id: `${env}#${found.snapshot.index as number}`, ...found };
      }),
    );
    const byFingerprint = (doc: Doc) =>
      new Map((doc.artifacts as SnapshotArtifact[]).map((a) => [a.fingerprint, a]));
    const [a1, a2] = [byFingerprint(one.snapshot), byFingerprint(two.snapshot)];
    const flows = new Map<string, string>();
    for (const fingerprint of new Set([...a1.keys(), ...a2.keys()])) {
      const [first] = await provenanceOf(this.reads, org, fingerprint);
      flows.set(fingerprint, first?.flow ?? '');
    }
    const entry = (a: SnapshotArtifact, s1: number, s2: number): KosliDiffArtifact => ({
      fingerprint: a.fingerprint,
      name: a.artifact_name,
      flow: flows.get(a.fingerprint) ?? '',
      commit_url: '',
      most_recent_timestamp: Math.max(0, ...a.pods.map((p) => p.created_at)),
      instance_count: s2 || s1,
      s1_instance_count: s1,
      s2_instance_count: s2,
      pods: a.pods.map((p) => p.pod),
    });
    const only1 = [...a1.values()].filter((a) => !a2.has(a.fingerprint)).map((a) => entry(a, a.instances, 0));
    const only2 = [...a2.values()].filter((a) => !a1.has(a.fingerprint)).map((a) => entry(a, 0, a.instances));
    const both = [...a2.values()].filter((a) => a1.has(a.fingerprint));
    const changed = both.filter((a) => a1.get(a.fingerprint)!.instances !== a.instances);
    const same = both.filter((a) => a1.get(a.fingerprint)!.instances === a.instances);
    return {
      snappish1: { snapshot_id: one.id, artifacts: only1 },
      snappish2: { snapshot_id: two.id, artifacts: only2 },
      changed: {
        snapshot_id: '',
        artifacts: changed.map((a) => entry(a, a1.get(a.fingerprint)!.instances, a.instances)),
      },
      'not-changed': { snapshot_id: '', artifacts: same.map((a) => entry(a, a.instances, a.instances)) },
    };
  }

  private async environment(reads: ReadStore, org: string, env: string): Promise<Doc> {
    const doc = await environmentNamed(docReads(reads), org, env);
    // The Kosli wording (these routes are not the spec's).
    if (!doc) throw new ApiError(404, `Environment named '${env}' does not exist for organization '${org}'`);
    return doc;
  }

  /** The snapshot a Kosli reference names; one in force at an instant is found in the environment as it was then. */
  private async snapshot(org: string, env: string, raw: string, shown = `${env}#${raw.replace(/^#/, '')}`) {
    const ref = parseSnapshotRef(fromKosliRef(raw, now()));
    const reads =
      ref.kind === 'at'
        ? await this.history.at({ org, projections: [environmentsProjection], within: env }, ref.at)
        : this.reads;
    const environment = await this.environment(reads, org, env);
    const latest = (environment.latest_snapshot as number | undefined) ?? 0;
    const index = snapshotIndex(ref, latest);
    const first = (environment.first_snapshot as number | undefined) ?? 1;
    const snapshot =
      index >= first && index <= latest ? await snapshotNamed(docReads(reads), org, env, index) : null;
    if (!snapshot) {
      // The Kosli wording: what the reference resolved to, and how many snapshots there are.
      throw new ApiError(
        404,
        `Org: '${org}'. Snapshot '${shown}' resolves to '${env}#${Math.max(index, 0)}'. len(snapshots) == ${latest}. Indexes are 1-based`,
      );
    }
    return { environment, snapshot, reads };
  }

  /**
   * The spec's snapshot fields, with the artifacts as the CLI decodes them
   * (pods by name, flow, commit); compliance as the compliance model has it
   * at the read's instant.
   */
  private async kosliSnapshot(
    reads: ReadStore,
    org: string,
    environment: Doc,
    snapshot: Doc,
  ): Promise<KosliSnapshot> {
    const view = snapshotView(snapshot);
    const previous =
      view.index > 1 ? await snapshotNamed(docReads(reads), org, view.environment, view.index - 1) : null;
    const before = new Map(
      ((previous?.artifacts as SnapshotArtifact[] | undefined) ?? []).map((a) => [
        a.fingerprint,
        a.instances,
      ]),
    );
    const artifacts = view.artifacts.map((a): KosliSnapshotArtifact => {
      const was = before.get(a.fingerprint) ?? 0;
      return {
        name: a.artifact_name,
        fingerprint: a.fingerprint,
        flow_name: a.provenance?.flow ?? '',
        trail_name: a.provenance?.trail ?? '',
        compliant: a.compliant,
        deployments: [],
        git_commit: a.provenance?.commit?.sha1 ?? '',
        commit_url: a.provenance?.commit?.url ?? '',
        creationTimestamp: a.pods.map((p) => p.created_at),
        pods: Object.fromEntries(
          a.pods.map((p) => [p.pod, { namespace: p.namespace, creationTimestamp: p.created_at, owners: [] }]),
        ),
        annotation: {
          type: was === 0 ? 'started' : was === a.instances ? 'unchanged' : 'scaled',
          was,
          now: a.instances,
        },
        instances: a.instances,
        since_snapshot: a.since_snapshot,
      };
    });
    const { artifacts: _view, ...fields } = view;
    return { org, ...fields, type: environment.type as string, user_id: '', user_name: '', artifacts };
  }
}
