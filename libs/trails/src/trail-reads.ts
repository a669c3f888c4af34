import { Inject, Injectable } from '@nestjs/common';
import { ApiError, READ_STORE, ReadModelsAt } from '#des/platform';
import { type Doc, docReads, type ReadStore } from '#des/read-store';
import { flowNamed, flowsProjection, type FlowTemplate } from '#des/flows';
import { TrailTimeMachine } from './trail-time-machine';
import type { TrailView } from './trail.view';
import { trailNamed } from './trails.queries';
import { trailsProjection } from './trails.projection';

/** What the trails feature's controllers read: a flow, a trail now or at an instant, a flow's read models at an instant. */
@Injectable()
export class TrailReads {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly history: ReadModelsAt,
    private readonly timeMachine: TrailTimeMachine,
  ) {}

  /** A flow's trails and artifacts now, or (`at`) as its streams made them up to that instant. */
  flowReadsAt(org: string, flow: string, at: number | undefined): Promise<ReadStore> {
    return this.history.readsFor(at, { org, projections: [flowsProjection, trailsProjection], within: flow });
  }

  async flow(
    org: string,
    flow: string,
    reads: ReadStore = this.reads,
    notFound = 'Flow not found',
  ): Promise<Doc> {
    const doc = await flowNamed(docReads(reads), org, flow);
    if (!doc) throw new ApiError(404, notFound);
    return doc;
  }

  /**
   * The trail's view and its flow's template, now or (`at`) as they were at
   * that instant; 404 `notFound` for either (else the one missing).
   */
  async trailView(
    org: string,
    flow: string,
    trail: string,
    at: number | undefined,
    notFound?: string,
  ): Promise<{ view: TrailView; template: FlowTemplate | null }> {
    if (at !== undefined) {
      // The trail as it was then: the fold time travel and evaluations use.
      const past = await this.timeMachine.at(org, flow, trail, at);
      if (!past.flowExists) throw new ApiError(404, notFound ?? 'Flow not found');
      if (!past.view) throw new ApiError(404, notFound ?? 'Trail not found');
      return { view: past.view, template: past.template };
    }
    const flowDoc = await this.flow(org, flow, undefined, notFound);
    const view = await trailNamed(docReads(this.reads), org, flow, trail);
    if (!view) throw new ApiError(404, notFound ?? 'Trail not found');
    return { view, template: flowDoc.template as FlowTemplate | null };
  }
}
