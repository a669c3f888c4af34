import { Inject, Injectable } from '@nestjs/common';
import type { PdfRenderer } from '#des/reports';
import { EVENT_STORE, PDF_RENDERER, READ_STORE } from '#des/platform';
import type { ReadStore } from '#des/read-store';
import { checkpointCovering } from '#des/ledger';
import type { EventStore } from '#des/event-store';
import { unixMicros } from '#des/kernel';
import { trailAuditHtml, trailReportFrame } from './trail-audit-report';
import { TrailReads } from './trail-reads';
import type { FlowTemplate } from '#des/flows';
import { trailCompliance, type TrailView } from './trail.view';
import { TrailTimelineQuery } from './trail-timeline.query';

/** The audit PDF prints at most this many timeline entries (the latest); the rest are a page away in the API. */
const PDF_TIMELINE_ENTRIES = 2_000;

/** A trail's audit report as PDF, at one exact instant: what endpoint 13 answers and a trail's bundle carries. */
@Injectable()
export class TrailAuditPdf {
  constructor(
    @Inject(PDF_RENDERER) private readonly pdf: PdfRenderer,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly timeline: TrailTimelineQuery,
    private readonly trailReads: TrailReads,
  ) {}

  /** The report at `asOf` (UNIX seconds), of the trail as `shown` then when the caller read it; 404 'Flow or trail not found'. */
  async render(
    org: string,
    flow: string,
    trail: string,
    asOf: number,
    shown?: { view: TrailView; template: FlowTemplate | null },
  ): Promise<Buffer> {
    const generatedAt = Date.now() / 1000;
    const { view, template } =
      shown ?? (await this.trailReads.trailView(org, flow, trail, asOf, 'Flow or trail not found'));
    const total = view.event_count;
    const range = { from: Math.max(0, total - PDF_TIMELINE_ENTRIES), until: total };
    const [entries, checkpoint] = await Promise.all([
      this.timeline.entries(org, flow, trail, range, asOf),
      checkpointCovering(this.events, this.reads, org, asOf),
    ]);
    const timeline = {
      entries,
      total,
      rest: `/api/v2/trails/${org}/${flow}/${trail}/events?at=${unixMicros(asOf)}`,
    };
    return this.pdf.render(
      trailAuditHtml(view, trailCompliance(view, template), asOf, generatedAt, timeline, checkpoint),
      trailReportFrame(view, asOf),
    );
  }
}

/** The file name a trail's downloads carry: `<flow>-<trail>-<what>`, safe in a header. */
export const trailFileName = (flow: string, trail: string, what: string) =>
  `${`${flow}-${trail}`.replace(/[^\w.-]/g, '_')}-${what}`;
