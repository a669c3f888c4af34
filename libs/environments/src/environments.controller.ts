import { eventsBound } from './events-bounds';
import { applyDecorators, Body, Controller, Get, Inject, Param, Put, Query, Req, Res } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiTags,
  getSchemaPath,
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
  JsonStringBody,
  periodOf,
  paged,
  EVENT_STORE,
  READ_STORE,
  ReadModelsAt,
  Requires,
  VALIDATION_FAILED,
} from '#des/platform';
import { EventTooLargeError, type EventStore } from '#des/event-store';
import { DomainError, meetsTags, tagConditions, tagsOf } from '#des/kernel';
import { type Doc, docReads, type ReadStore } from '#des/read-store';
import { AuthenticatedRequest, requestMetadata } from '#des/accounts';
import { AUDIT_COLUMNS, auditFilter, csvRow } from './audit-log';
import { ChangeEnvironment } from './environment.commands';
import { snapshotBytesOfPods } from './k8s-report-size';
import {
  environmentStream,
  type EnvironmentCommand,
  type EnvironmentState,
  type EnvironmentType,
} from './environment.decider';
import { parsePlatformReport, type PlatformReportType, platformReportSchema } from './platform-report';
import { parseSnapshotRef, SNAPSHOT_REF_PATTERN, snapshotIndex, snapshotInterval } from './snapshot-ref';
import { deploymentView, environmentView, envUrl, eventView } from './environment-view';
import { snapshotView } from './compliance-model';
import { assessReport } from './running-assessment';
import {
  AuditLogQuery,
  DeploymentsQuery,
  EnvironmentEventsQuery,
  EnvironmentView,
  CreateEnvironmentPutInput,
  DeploymentsPage,
  EnvironmentsPage,
  JoinEnvironmentDto,
  ListEnvironmentsQuery,
  RenameEnvironmentDto,
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
import { type K8sPod, K8S_REPORT_SCHEMA, parseK8sReport, runningArtifacts } from './k8s-report';

/** The route of a report of a type other than K8S, with that type's body in the OpenAPI document. */
const ReportRoute = (type: PlatformReportType, operationId: string, cli: string) =>
  applyDecorators(
    Put(`:org/:env/report/${type}`),
    ApiOperation({
      operationId,
      summary: `Report what runs in a${/^[aeiouAEIOU]|^S3|^ECS/.test(type) ? 'n' : ''} ${type} environment`,
      description: `What the Kosli CLI's \`${cli}\` sends. The same model as the K8S report: a report that changes what runs makes a snapshot (201 "Snapshot created"), one that does not makes none (200 "No new snapshot created"); an environment of another type answers 400.`,
    }),
    ApiBody({ schema: platformReportSchema(type) as never }),
    ApiCreatedResponse({ type: String, description: '"Snapshot created"' }),
    ApiOkResponse({ type: String, description: '"No new snapshot created"' }),
    Requires('snapshotter'),
  );

@ApiTags('environments')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller('environments')
export class EnvironmentsController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
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
    @Body() body: CreateEnvironmentPutInput,
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
  private async checkMembers(
    org: string,
    body: CreateEnvironmentPutInput,
    included: string[],
  ): Promise<void> {
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
  @ApiOperation({
    operationId: 'listEnvironments',
    summary: 'List environments',
    description:
      'The whole list by name; a page (`{page, per_page, total_pages, total_count, environments}`) when `page` or `per_page` is given. Archived environments only with `archived`.',
  })
  @Requires('reader')
  @ApiOkResponse({
    schema: {
      oneOf: [
        { type: 'array', items: { $ref: getSchemaPath(EnvironmentView) } },
        { $ref: getSchemaPath(EnvironmentsPage) },
      ],
    },
  })
  @ApiExtraModels(EnvironmentView, EnvironmentsPage)
  async list(@Param('org') org: string, @Query() query: ListEnvironmentsQuery, @Req() req: Request) {
    const { at } = query;
    const reads = await this.readModelsAt.readsFor(at, { org, projections: [environmentsProjection] });
    // An organization's environments are few: filtered, sorted and paged here, the same in every mode.
    const docs = (await reads.collection(ENVIRONMENTS).find(listFilter(org, query), { sort: { name: 1 } }))
      .filter(listed(query))
      .sort(listOrder(query));
    const view = (doc: Doc) => environmentView(doc, envUrl(req, org, doc.name as string, at));
    if (query.page === undefined && query.per_page === undefined) return docs.map(view);
    const page = query.page ?? 1;
    const perPage = query.per_page ?? 20;
    return {
      page,
      per_page: perPage,
      total_pages: Math.ceil(docs.length / perPage),
      total_count: docs.length,
      environments: docs.slice((page - 1) * perPage, page * perPage).map(view),
    };
  }

  @Put(':org/:env/archive')
  @ApiOperation({
    operationId: 'archiveEnvironment',
    summary: 'Archive an environment: it takes no reports and leaves the list (its history stays)',
  })
  @Requires('snapshotter')
  @JsonStringBody()
  @ApiOkResponse({ type: String, description: '"Environment archived"' })
  async archive(@Param('org') org: string, @Param('env') env: string, @Req() req: AuthenticatedRequest) {
    await this.lifecycle(org, env, { kind: 'archive', name: env }, req);
    return jsonString('Environment archived');
  }

  @Put(':org/:env/unarchive')
  @ApiOperation({ operationId: 'unarchiveEnvironment', summary: 'Restore an archived environment' })
  @Requires('snapshotter')
  @JsonStringBody()
  @ApiOkResponse({ type: String, description: '"Environment unarchived"' })
  async unarchive(@Param('org') org: string, @Param('env') env: string, @Req() req: AuthenticatedRequest) {
    await this.lifecycle(org, env, { kind: 'unarchive', name: env }, req);
    return jsonString('Environment unarchived');
  }

  @Put(':org/:env/rename')
  @ApiOperation({
    operationId: 'renameEnvironment',
    summary: 'Rename an environment (docs/adr: its history stays under the old name, at instants before)',
  })
  @Requires('snapshotter')
  @ApiOkResponse({ type: EnvironmentView })
  async rename(
    @Param('org') org: string,
    @Param('env') env: string,
    @Body() body: RenameEnvironmentDto,
    @Req() req: AuthenticatedRequest,
  ) {
    const newName = body.new_name;
    if (!NAME.test(newName)) {
      throw new ApiError(
        400,
        `'${newName}' is an invalid name for environments. Valid names should start with an alphanumeric and only contain alphanumeric characters, '.', '-' and '_'.`,
      );
    }
    const doc = await this.live(org, env);
    if (newName !== env) {
      if (await this.reads.collection(ENVIRONMENTS).findOne(liveFilter(org, newName))) {
        throw new ApiError(409, `An environment named '${newName}' already exists`);
      }
      const state = await this.commands.execute(
        new ChangeEnvironment(org, { kind: 'rename_out', name: env, newName }, requestMetadata(req)),
      );
      const from = state.state as EnvironmentState;
      await this.commands.execute(
        new ChangeEnvironment(
          org,
          {
            kind: 'rename_in',
            name: newName,
            from: {
              name: newName,
              previous_name: env,
              type: from.type,
              description: from.description,
              included_environments: from.included,
              last_index: from.lastIndex,
              running: from.running,
              tags: from.tags,
              policies: from.policies,
            },
          },
          requestMetadata(req),
        ),
      );
      // The logical environments it was a member of keep it, by its new name.
      const groups = await this.reads
        .collection(ENVIRONMENTS)
        .find({ org, type: 'logical', included_environments: env, renamed_to: null });
      for (const group of groups) {
        await this.commands.execute(
          new ChangeEnvironment(
            org,
            { kind: 'rename_member', name: group.name as string, from: env, to: newName },
            requestMetadata(req),
          ),
        );
      }
    }
    return environmentView(
      newName === env ? doc : await this.environment(org, newName),
      envUrl(req, org, newName),
    );
  }

  @Put(':org/:env/join')
  @ApiOperation({
    operationId: 'joinEnvironment',
    summary: 'Add a physical environment to a logical one',
  })
  @Requires('snapshotter')
  @ApiOkResponse({ type: EnvironmentView })
  async join(
    @Param('org') org: string,
    @Param('env') env: string,
    @Body() body: JoinEnvironmentDto,
    @Req() req: AuthenticatedRequest,
  ) {
    const physical = await this.reads
      .collection(ENVIRONMENTS)
      .findOne(liveFilter(org, body.physical_env_name));
    if (!physical) throw new ApiError(404, notFoundMessage(org, body.physical_env_name));
    if (physical.type === 'logical') {
      throw new ApiError(400, VALIDATION_FAILED, {
        physical_env_name: `'${body.physical_env_name}' is logical; members are physical`,
      });
    }
    await this.lifecycle(org, env, { kind: 'join', name: env, physical: body.physical_env_name }, req);
    return environmentView(await this.environment(org, env), envUrl(req, org, env));
  }

  /** A lifecycle command on an environment that exists now, in the Kosli CLI's wording when it does not. */
  private async lifecycle(org: string, env: string, command: EnvironmentCommand, req: AuthenticatedRequest) {
    await this.live(org, env);
    try {
      await this.commands.execute(new ChangeEnvironment(org, command, requestMetadata(req)));
    } catch (e) {
      if (e instanceof DomainError && e.kind === 'not_found')
        throw new ApiError(404, notFoundMessage(org, env));
      throw e;
    }
  }

  private async live(org: string, env: string): Promise<Doc> {
    const doc = await this.reads.collection(ENVIRONMENTS).findOne(liveFilter(org, env));
    if (!doc) throw new ApiError(404, notFoundMessage(org, env));
    return doc;
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
    const parsed = await parseK8sReport(body);
    if ('errors' in parsed) throw new ApiError(400, 'Invalid report data', parsed.errors);
    await this.record(org, env, 'K8S', parsed.pods, req, res);
  }

  @ReportRoute('server', 'reportServerEnvironment', 'snapshot server|path|paths')
  reportServer(
    @Param('org') o: string,
    @Param('env') e: string,
    @Body() b: unknown,
    @Req() q: AuthenticatedRequest,
    @Res() r: Response,
  ) {
    return this.reportOf('server', o, e, b, q, r);
  }

  @ReportRoute('S3', 'reportS3Environment', 'snapshot s3')
  reportS3(
    @Param('org') o: string,
    @Param('env') e: string,
    @Body() b: unknown,
    @Req() q: AuthenticatedRequest,
    @Res() r: Response,
  ) {
    return this.reportOf('S3', o, e, b, q, r);
  }

  @ReportRoute('lambda', 'reportLambdaEnvironment', 'snapshot lambda')
  reportLambda(
    @Param('org') o: string,
    @Param('env') e: string,
    @Body() b: unknown,
    @Req() q: AuthenticatedRequest,
    @Res() r: Response,
  ) {
    return this.reportOf('lambda', o, e, b, q, r);
  }

  @ReportRoute('ECS', 'reportEcsEnvironment', 'snapshot ecs')
  reportEcs(
    @Param('org') o: string,
    @Param('env') e: string,
    @Body() b: unknown,
    @Req() q: AuthenticatedRequest,
    @Res() r: Response,
  ) {
    return this.reportOf('ECS', o, e, b, q, r);
  }

  @ReportRoute('docker', 'reportDockerEnvironment', 'snapshot docker')
  reportDocker(
    @Param('org') o: string,
    @Param('env') e: string,
    @Body() b: unknown,
    @Req() q: AuthenticatedRequest,
    @Res() r: Response,
  ) {
    return this.reportOf('docker', o, e, b, q, r);
  }

  @ReportRoute('azure-apps', 'reportAzureAppsEnvironment', 'snapshot azure-apps')
  reportAzureApps(
    @Param('org') o: string,
    @Param('env') e: string,
    @Body() b: unknown,
    @Req() q: AuthenticatedRequest,
    @Res() r: Response,
  ) {
    return this.reportOf('azure-apps', o, e, b, q, r);
  }

  @ReportRoute('cloud-run', 'reportCloudRunEnvironment', 'snapshot cloud-run')
  reportCloudRun(
    @Param('org') o: string,
    @Param('env') e: string,
    @Body() b: unknown,
    @Req() q: AuthenticatedRequest,
    @Res() r: Response,
  ) {
    return this.reportOf('cloud-run', o, e, b, q, r);
  }

  /** A report of a type other than K8S: its own body, the same model. */
  private async reportOf(
    type: PlatformReportType,
    org: string,
    env: string,
    body: unknown,
    req: AuthenticatedRequest,
    res: Response,
  ) {
    const parsed = await parsePlatformReport(type, body);
    if ('errors' in parsed) throw new ApiError(400, 'Invalid report data', parsed.errors);
    await this.record(org, env, type, parsed.pods, req, res);
  }

  /** A report, as every type makes one: assessed, decided, answered 201 (a snapshot) or 200 (none). */
  private async record(
    org: string,
    env: string,
    reportType: EnvironmentType,
    pods: K8sPod[],
    req: AuthenticatedRequest,
    res: Response,
  ) {
    // A snapshot the store would refuse is refused before its artifacts are grouped, assessed and written
    // out (an ECS report of long task names: a 50 MB event stringified, then refused).
    if (snapshotBytesOfPods(pods) > this.eventStore.maxAppendSize)
      throw new EventTooLargeError(environmentStream(org, env), undefined, this.eventStore.maxAppendSize);
    const done = await this.commands.execute(
      new ChangeEnvironment(
        org,
        {
          kind: 'report',
          name: env,
          reportType,
          artifacts: await assessReport(docReads(this.reads), org, env, runningArtifacts(pods)),
          pods: pods.length,
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
      index >= ((environment.first_snapshot as number) ?? 1) && index <= latest
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
    const environment = await this.environment(org, env, reads);
    const filter = eventsFilter(org, env, query, (environment.latest_snapshot as number) ?? 0);
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
    const { total, docs } = await collection.findPage(filter, {
      sort: { deployed_at: -1, snapshot_index: -1, fingerprint: 1 },
      skip: (page - 1) * perPage,
      limit: perPage,
    });
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
    if (!doc || doc.renamed_to) throw new ApiError(404, 'Environment not found');
    return doc;
  }
}

const NAME = /^[a-zA-Z0-9][a-zA-Z0-9.\-_~]*$/;

/** The Kosli wording, on the routes the spec does not name (archive, rename, join). */
const notFoundMessage = (org: string, env: string) =>
  `Environment named '${env}' does not exist for organization '${org}'`;

/** The environment named so now (not a name given up by a rename). */
const liveFilter = (org: string, env: string) => ({ _id: environmentId(org, env), renamed_to: null });

/** The list's filter in the read store: the organization's environments now, archived or not, of the types asked. */
function listFilter(org: string, query: ListEnvironmentsQuery): Record<string, unknown> {
  const filter: Record<string, unknown> = { org, renamed_to: null };
  if (query.archived === 'true') filter.archived = true;
  else if (query.archived !== 'all') filter.archived = { $ne: true };
  const types = [query.type ?? []].flat();
  if (types.length) filter.type = { $in: types };
  return filter;
}

/** The rest of the list's filter: a name substring, and every tag asked (`key` or `key:value`). */
function listed(query: ListEnvironmentsQuery): (doc: Doc) => boolean {
  const conditions = tagConditions([query.tag ?? []].flat());
  return (doc) =>
    (!query.name || (doc.name as string).includes(query.name)) && meetsTags(tagsOf(doc.tags), conditions);
}

/** `sort` (default name) in `sort_direction` (default asc), then the name; never-reported last when ascending. */
function listOrder(query: ListEnvironmentsQuery): (a: Doc, b: Doc) => number {
  const field = query.sort ?? 'name';
  const direction = query.sort_direction === 'desc' ? -1 : 1;
  const compare = (x: unknown, y: unknown) =>
    x === y ? 0 : x === null || x === undefined ? 1 : y === null || y === undefined ? -1 : x < y ? -1 : 1;
  return (a, b) => direction * (compare(a[field], b[field]) || compare(a.name, b.name));
}

/** Narrows a range (`$gte`/`$lte`) from one side. */
function narrowed(range: { $gte?: number; $lte?: number } | undefined, side: '$gte' | '$lte', value: number) {
  const next = { ...(range ?? {}) };
  next[side] = side === '$gte' ? Math.max(next[side] ?? value, value) : Math.min(next[side] ?? value, value);
  return next;
}

/** The audit log's filter, with the Kosli CLI's names for its bounds and repositories, and its snapshot interval. */
function eventsFilter(org: string, env: string, query: EnvironmentEventsQuery, latest: number) {
  const repos = [query.repo_names, ...[query.repo_name ?? []].flat()].filter((r): r is string => !!r);
  const filter = auditFilter(org, env, {
    ...query,
    from_timestamp: query.from_timestamp ?? query.start_ts,
    to_timestamp: query.to_timestamp ?? query.end_ts,
    repo_names: repos.length ? repos.join(',') : undefined,
  });
  let snapshots: { $gte?: number; $lte?: number } = {};
  if (query.interval) {
    const { from, to } = snapshotInterval(query.interval, latest);
    snapshots = { $gte: from, $lte: to };
  }
  // `--start`/`--end`: each a snapshot or an instant, narrowing what the rest selects.
  const now = Date.now() / 1000;
  for (const [text, side] of [
    [query.start, '$gte'],
    [query.end, '$lte'],
  ] as const) {
    if (!text) continue;
    const bound = eventsBound(text, latest, now);
    if ('snapshot' in bound) snapshots = narrowed(snapshots, side, bound.snapshot);
    else filter.timestamp = narrowed(filter.timestamp as { $gte?: number; $lte?: number }, side, bound.at);
  }
  if (Object.keys(snapshots).length) filter.snapshot_index = snapshots;
  return filter;
}
