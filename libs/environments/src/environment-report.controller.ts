import { Controller, Get, Inject, Param, Query, Res } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import type { Response } from 'express';
import { type EventStore, TimeSlice } from '#des/event-store';
import { unixMicros } from '#des/kernel';
import {
  ApiError,
  ApiFileResponse,
  AtQuery,
  EVENT_STORE,
  IsInstant,
  Heavy,
  PDF_RENDERER,
  periodOf,
  pinnedNow,
  READ_STORE,
  ReadModelsAt,
  Requires,
} from '#des/platform';
import { checkpointCovering } from '#des/ledger';
import type { ReadStore } from '#des/read-store';
import type { PdfRenderer } from '#des/reports';
import { snapshotView } from './compliance-model';
import { environmentReportFrame, environmentReportHtml, environmentReportRows } from './environment-report';
import {
  environmentsProjection,
  ENVIRONMENT_EVENTS,
  ENVIRONMENTS,
  environmentId,
  SNAPSHOTS,
  snapshotId,
} from './environments.projection';
import type { AuditRow } from './environments.queries';

/** The report prints at most this many changes and snapshots (the latest); the rest are a call away. */
const REPORT_ROWS = 2_000;

class EnvironmentReportQuery extends AtQuery {
  @IsOptional()
  @IsInstant('from', 'Changes from this instant (default: 30 days before `to`)')
  from?: number;

  @IsOptional()
  @IsInstant('to', 'Changes up to this instant (default: `at`)')
  to?: number;
}

/** An environment's audit report, as PDF. */
@ApiTags('auditing')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller('environments')
export class EnvironmentReportController {
  constructor(
    @Inject(PDF_RENDERER) private readonly pdf: PdfRenderer,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly live: ReadStore,
    private readonly readModelsAt: ReadModelsAt,
  ) {}

  @Get(':org/:env/audit_pdf')
  @Heavy()
  @ApiOperation({
    operationId: 'getEnvironmentReportPdf',
    summary: "Download an environment's audit report as PDF",
  })
  @Requires('reader')
  @ApiProduces('application/pdf')
  @ApiFileResponse('application/pdf', 'The environment audit report, at the instant it prints')
  async auditPdf(
    @Param('org') org: string,
    @Param('env') env: string,
    @Query() query: EnvironmentReportQuery,
    @Res() res: Response,
  ) {
    // One exact instant, to the microsecond: the one asked for, or now; everything is read as it was then.
    const generatedAt = Date.now() / 1000;
    const instant = query.at ?? (await pinnedNow(this.events));
    const { from, to } = periodOf(query.from, Math.min(query.to ?? instant, instant));
    const reads = await this.readModelsAt.readsFor(instant, {
      org,
      projections: [environmentsProjection],
      within: env,
    });
    const environment = await reads.collection(ENVIRONMENTS).findOne({ _id: environmentId(org, env) });
    if (!environment) throw new ApiError(404, 'Environment not found');
    const latest = (environment.latest_snapshot as number | undefined) ?? 0;
    const changeFilter = { org, environment: env, timestamp: { $gte: from, $lte: to } };
    const [inForce, { docs: changes, total: changesTotal }, snapshots] = await Promise.all([
      latest > 0 ? reads.collection(SNAPSHOTS).findOne({ _id: snapshotId(org, env, latest) }) : null,
      reads.collection(ENVIRONMENT_EVENTS).findPage(changeFilter, { sort: { seq: -1 }, limit: REPORT_ROWS }),
      reads
        .collection(SNAPSHOTS)
        .find({ org, environment: env }, { sort: { index: -1 }, limit: REPORT_ROWS }),
    ]);
    const checkpoint = await checkpointCovering(this.events, this.live, org, instant);
    // Up to 2,000 snapshots of thousands of artifacts each, and as many rows: views and rows are made a
    // slice at a time, the loop getting a turn every 10 ms (ADR 0043).
    const slice = new TimeSlice();
    const inForceView = inForce ? snapshotView(inForce) : null;
    if (slice.due) await slice.turn();
    const report = {
      org,
      environment: {
        name: env,
        type: environment.type as string,
        description: (environment.description as string | undefined) ?? '',
        policies: (environment.policies as string[] | undefined) ?? [],
        state: (environment.state as boolean | undefined) ?? true,
      },
      instant,
      generatedAt,
      period: { from, to },
      inForce: inForceView,
      changes: (changes as unknown as AuditRow[]).reverse(),
      changesTotal,
      changesRest:
        `/api/v2/environments/${org}/${env}/events?from_timestamp=${unixMicros(from)}` +
        `&to_timestamp=${unixMicros(to)}&at=${unixMicros(instant)}`,
      snapshots: await inSlices(snapshots, slice, (s) => {
        const view = snapshotView(s);
        return {
          index: view.index,
          timestamp: view.timestamp,
          compliant: view.compliant,
          artifacts: view.artifacts.length,
        };
      }),
      checkpoint,
    };
    const rows = await environmentReportRows(report, slice);
    const pdf = await this.pdf.render(environmentReportHtml(report, rows), environmentReportFrame(report));
    res
      .status(200)
      .type('application/pdf')
      .setHeader('Content-Disposition', `attachment; filename="${env.replace(/[^\w.-]/g, '_')}-audit.pdf"`);
    res.send(pdf);
  }
}

/** `items.map(view)`, the loop given a turn whenever `slice` is due. */
async function inSlices<T, U>(items: T[], slice: TimeSlice, view: (item: T) => U): Promise<U[]> {
  const out: U[] = [];
  for (const item of items) {
    if (slice.due) await slice.turn();
    out.push(view(item));
  }
  return out;
}
