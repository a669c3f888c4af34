import type { EventStore } from '../../../../libs/event-store/src';
import { secondsToMicros } from '../../../../libs/event-store/src/microseconds';
import { flowStream, type FlowEvent } from '../flows/flow.decider';
import type { FlowTemplate } from '../flows/flow-template';
import { trailStream, type TrailEvent } from './trail.events';
import { evolveTrailView, TrailView } from './trail.view';

/**
 * Time travel: a trail as it was at an instant, by folding its own stream up
 * to that recorded instant with the code the live read model uses. Its cost
 * is that trail's history (and its flow's), not the size of the log.
 */
export async function trailAt(
  events: EventStore,
  org: string,
  flow: string,
  trail: string,
  atSeconds: number,
): Promise<{ view: TrailView | null; template: FlowTemplate | null; flowExists: boolean }> {
  const until = secondsToMicros(atSeconds);
  const flowHistory = await events.readStream(flowStream(org, flow), { untilRecordedAt: until });
  // Every flow event carries the whole template: the latest one counts.
  const latest = flowHistory[flowHistory.length - 1];
  const template = latest ? ((latest.data as FlowEvent['data']).template ?? null) : null;
  const history = await events.readStream(trailStream(org, flow, trail), { untilRecordedAt: until });
  const view = history.reduce<TrailView | null>(
    (v, e) => evolveTrailView(v, org, { type: e.type, data: e.data } as TrailEvent, e.recordedAt),
    null,
  );
  return { view, template, flowExists: flowHistory.length > 0 };
}
