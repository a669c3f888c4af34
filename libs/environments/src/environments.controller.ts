import { Body, Controller, Get, Inject, Param, Put, Query, Req, Res } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import { stringify } from 'csv-stringify';
import type { Request, Response } from 'express';
import { once } from 'node:events';
import { CommandBus } from '@nestjs/cqrs';
import {
  ApiCreatedOrUpdated,
  ApiError,
  ApiFileResponse,
  AtQuery,
  jsonString,
  periodOf,
  paged,
  READ_STORE,
  ReadModelsAt,
  Requires,
} from '#des/platform';
import { type Doc, docReads, type ReadStore } from '#des/read-store';
import { AuthenticatedRequest, requestMetadata } from '#des/accounts';
import { AUDIT_COLUMNS, auditFilter, csvRow } from './audit-log';
import { ChangeEnvironment } from './environment.commands';
import { parseSnapshotRef, SNAPSHOT_REF_PATTERN, snapshotIndex, snapshotInterval } from './snapshot-ref';
import { deploymentView, environmentView, envUrl, eventView } from './environment-view';
import { snapshotView } from './compliance-model';
import { assessReport } from './running-assessment';
import {
  AuditLogQuery,
  DeploymentsQuery,
  EnvironmentEventsQuery,
  EnvironmentView,
  PutEnvironmentDto,
  DeploymentsPage,
  EnvironmentEventView,
  SnapshotDto,
} from './environments.dto';
import {
  DEPLOYMENTS,
  ENVIRONMENT_EVENTS,
  ENVIRONMENTS,
  environmentId,
  SNAPSHOTS,
  snapshotId,
  environmentsProjection,
} from './environments.projection';
import { K8S_REPORT_SCHEMA, parseK8sReport, runningArtifacts } from './k8s-report';

@ApiTags('environments')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller('environments')
export class EnvironmentsController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly readModelsAt: ReadModelsAt,
  ) {}

  /** The read models now, or (`?at=`) as the environment's stream made them up to that instant. */
  private readsAt(org: string, env: string, at: number | undefined): Promise<ReadStore> {
    return this.readModelsAt.readsFor(at, { org, projections: [environmentsProjection], within: env });
  }

  @Put(':org')
  @ApiOperation({ operationId: 'putEnvironment', summary: 'Create or update an environment' })
  @ApiCreatedOrUpdated(EnvironmentView)
  @Requires('snapshotter')
  async put(
    @Param('org') org: string,
    @Body() body: PutEnvironmentDto,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ) {
    await this.checkMembers(org, body, body.included_environments ?? []);
    const included = [...new Set(body.included_environments ?? [])].sort();
    const done = await this.commands.execute(
      new ChangeEnvironment(
        org,
        {
          kind: 'put_environment',
          name: body.name,
          type: body.type,
          description: body.description ?? '',
          included,
        },
        requestMetadata(req),
      ),
    );
    res.status(done.events[0]?.type === 'environment_created' ? 201 : 200);
    return environmentView(await this.environment(org, body.name), envUrl(req, org, body.name));
  }

  /** Members only for logical environments, and only existing physical ones. */
  private async checkMembers(org: string, body: PutEnvironmentDto, included: string[]): Promise<void> {
    if (body.type !== 'logical') {
      if (included.length) {
        throw new ApiError(400, 'Input payload validation failed', {
          included_environments: 'only a logical environment has members',
        });
      }
      return;
    }
    const members = await this.reads
      .collection(ENVIRONMENTS)
      .find({ _id: { $in: included.map((n) => environmentId(org, n)) } });
    const errors: Record<string, string> = {};
    included.forEach((name, i) => {
      const member = members.find((m) => m.name === name);
      if (!member) errors[`included_environments[${i}]`] = `environment '${name}' does not exist`;
      else if (member.type === 'logical')
        errors[`included_environments[${i}]`] = `'${name}' is logical; members are physical`;
    });
    if (Object.keys(errors).length) throw new ApiError(400, 'Input payload validation failed', errors);
  }

  @Get(':org')
  @ApiOperation({ operationId: 'listEnvironments', summary: 'List environments' })
  @Requires('reader')
  @ApiOkResponse({ type: [EnvironmentView] })
  async list(@Param('org') org: string, @Query() { at }: AtQuery, @Req() req: Request) {
    const reads = await this.readModelsAt.readsFor(at, { org, projections: [environmentsProjection] });
    return (await reads.collection(ENVIRONMENTS).find({ org }, { sort: { name: 1 } })).map((doc) =>
      environmentView(doc, envUrl(req, org, doc.name as string, at)),
    );
  }

  @Get(':org/:env')
  @ApiOperation({ operationId: 'getEnvironment', summary: 'Read an environment' })
  @Requires('reader')
  @ApiOkResponse({ type: EnvironmentView })
  async read(
    @Param('org') org: string,
    @Param('env') env: string,
    @Query() { at }: AtQuery,
    @Req() req: Request,
  ) {
    return environmentView(
      await this.environment(org, env, await this.readsAt(org, env, at)),
      envUrl(req, org, env, at),
    );
  }

  @Put(':org/:env/report/K8S')
  @ApiOperation({
    operationId: 'reportKubernetesEnvironment',
    summary: 'Report what runs in a Kubernetes environment',
  })
  @ApiCreatedResponse({ type: String, description: '"Snapshot created"' })
  @Requires('snapshotter')
  @ApiBody({
    description: '{"artifacts": [{"creationTimestamp", "digests": {image: digest}, "namespace", "podName"}]}',
    schema: K8S_REPORT_SCHEMA as never,
  })
  @ApiOkResponse({ type: String, description: '201 "Snapshot created", or 200 "No new snapshot created"' })
  async reportK8s(
    @Param('org') org: string,
    @Param('env') env: string,
    @Body() body: unknown,
    @Req() req: AuthenticatedRequest,
    @Res() res: Response,
  ) {
    const parsed = parseK8sReport(body);
    if ('errors' in parsed) throw new ApiError(400, 'Invalid report data', parsed.errors);
    const done = await this.commands.execute(
      new ChangeEnvironment(
        org,
        {
          kind: 'report',
          name: env,
          reportType: 'K8S',
          artifacts: await assessReport(docReads(this.reads), org, env, runningArtifacts(parsed.pods)),
          pods: parsed.pods.length,
        },
        requestMetadata(req),
      ),
    );
    const created = done.events.some((e) => e.type === 'snapshot_created');
    res
      .status(created ? 201 : 200)
      .type('application/json')
      .send(jsonString(created ? 'Snapshot created' : 'No new snapshot created'));
  }

  /**
   * A snapshot by reference: `-1` the latest, `N`, `~N` (N before the latest)
   * or `@<UNIX seconds>` (the one in force then); with `?at=`, among the
   * snapshots recorded by that instant.
   */
  @Get(':org/:env/snapshots/:ref')
  @ApiOperation({ operationId: 'getSnapshot', summary: "Read one of an environment's snapshots" })
  @Requires('reader')
  @ApiParam({ name: 'ref', schema: { type: 'string', pattern: SNAPSHOT_REF_PATTERN } })
  @ApiOkResponse({ type: SnapshotDto })
  async snapshot(
    @Param('org') org: string,
    @Param('env') env: string,
    @Param('ref') rawRef: string,
    @Query() { at }: AtQuery,
    @Req() req: Request,
  ): Promise<SnapshotDto> {
    const ref = parseSnapshotRef(rawRef);
    const inForce = ref.kind === 'at' ? Math.min(ref.at, at ?? Infinity) : at;
    const reads = await this.readsAt(org, env, inForce);
    const environment = await this.environment(org, env, reads);
    const latest = (environment.latest_snapshot as number) ?? 0;
    const index = snapshotIndex(ref, latest);
    const doc =
      index > 0 && index <= latest
        ? await reads.collection(SNAPSHOTS).findOne({ _id: snapshotId(org, env, index) })
        : null;
    if (!doc) throw new ApiError(404, 'Snapshot not found');
    return { ...snapshotView(doc), html_url: envUrl(req, org, env, doc.timestamp as number) };
  }

  @Get(':org/:env/events')
  @ApiOperation({ operationId: 'listEnvironmentEvents', summary: "List an environment's audit log events" })
  @Requires('reader')
  @ApiOkResponse({
    type: [EnvironmentEventView],
    description: 'The whole log oldest first; paged (`page`, `per_page`), newest first unless `reverse=true`',
  })
  async events(
    @Param('org') org: string,
    @Param('env') env: string,
    @Query() query: EnvironmentEventsQuery,
  ): Promise<EnvironmentEventView[]> {
    const reads = await this.readsAt(org, env, query.at);
    await this.environment(org, env, reads);
    const filter = eventsFilter(org, env, query);
    const paged = query.page !== undefined || query.per_page !== undefined;
    // Paged (as the Kosli CLI asks), newest first unless `reverse=true`; unpaged, the spec's whole list, oldest first.
    const newestFirst = paged && query.reverse !== 'true';
    const perPage = query.per_page ?? 15;
    const rows = await reads.collection(ENVIRONMENT_EVENTS).find(filter, {
      sort: { seq: newestFirst ? -1 : 1 },
      ...(paged ? { skip: ((query.page ?? 1) - 1) * perPage, limit: perPage } : {}),
    });
    return rows.map(eventView);
  }

  @Get(':org/:env/deployments')
  @ApiOperation({ operationId: 'listDeployments', summary: "List an environment's deployments in a period" })
  @Requires('reader')
  @ApiOkResponse({ type: DeploymentsPage })
  async deployments(
    @Param('org') org: string,
    @Param('env') env: string,
    @Query() query: DeploymentsQuery,
    @Req() req: Request,
  ): Promise<DeploymentsPage> {
    const reads = await this.readsAt(org, env, query.at);
    await this.environment(org, env, reads);
    // "Now" is the instant asked for, when one is.
    const { from, to } = periodOf(query.from, query.to ?? query.at ?? Date.now() / 1000);
    const page = query.page ?? 1;
    const perPage = query.per_page ?? 20;
    const filter = { org, env_name: env, deployed_at: { $gte: from, $lte: to } };
    const collection = reads.collection(DEPLOYMENTS);
    const [total, docs] = await Promise.all([
      collection.count(filter),
      collection.find(filter, {
        sort: { deployed_at: -1, snapshot_index: -1, fingerprint: 1 },
        skip: (page - 1) * perPage,
        limit: perPage,
      }),
    ]);
    const { items: deployments, ...page_ } = paged(
      docs.map((d) =>
        deploymentView(d, `/api/v2/environments/${org}/${env}/snapshots/${d.snapshot_index as number}`),
      ),
      {
        page,
        perPage,
        total,
        base: req.originalUrl.split('?')[0],
        query: {
          from: new Date(from * 1000).toISOString(),
          to: new Date(to * 1000).toISOString(),
          ...(query.at === undefined ? {} : { at: String(query.at) }),
        },
      },
    );
    return { ...page_, deployments };
  }

  @Get(':org/:env/auditlog')
  @ApiOperation({
    operationId: 'exportEnvironmentAuditLog',
    summary: "Export an environment's audit log as CSV",
  })
  @Requires('reader')
  @ApiProduces('text/csv')
  @ApiFileResponse(
    'text/csv',
    `The audit log: a header row (${AUDIT_COLUMNS.join(',')}), then a row per entry, oldest first`,
  )
  async auditLog(
    @Param('org') org: string,
    @Param('env') env: string,
    @Query() query: AuditLogQuery,
    @Res() res: Response,
  ) {
    const reads = await this.readsAt(org, env, query.at);
    await this.environment(org, env, reads);
    res.status(200).type('text/csv; charset=utf-8');
    res.setHeader(
      'Content-Disposition',
      `attachment; filename="${env.replace(/[^\w.-]/g, '_')}-auditlog.csv"`,
    );
    const csv = stringify({ header: true, columns: [...AUDIT_COLUMNS] });
    csv.pipe(res);
    try {
      for await (const row of reads
        .collection(ENVIRONMENT_EVENTS)
        .stream(auditFilter(org, env, query), { sort: { seq: 1 } })) {
        if (!csv.write(csvRow(row))) await once(csv, 'drain');
      }
    } finally {
      csv.end();
    }
  }

  private async environment(org: string, name: string, reads: ReadStore = this.reads): Promise<Doc> {
    const doc = await reads.collection(ENVIRONMENTS).findOne({ _id: environmentId(org, name) });
    if (!doc) throw new ApiError(404, 'Environment not found');
    return doc;
  }
}

/** The audit log's filter, with the Kosli CLI's names for its bounds and repositories, and its snapshot interval. */
function eventsFilter(org: string, env: string, query: EnvironmentEventsQuery) {
  const repos = [query.repo_names, ...[query.repo_name ?? []].flat()].filter((r): r is string => !!r);
  const filter = auditFilter(org, env, {
    ...query,
    from_timestamp: query.from_timestamp ?? query.start_ts,
    to_timestamp: query.to_timestamp ?? query.end_ts,
    repo_names: repos.length ? repos.join(',') : undefined,
  });
  if (query.interval) {
    const { from, to } = snapshotInterval(query.interval);
    filter.snapshot_index = { $gte: from, $lte: to };
  }
  return filter;
}
