import { microsToSeconds } from '#des/event-store';
import type { EnvironmentEvent } from '#des/environments';
import { derivedId, type Reaction, reactionMetadata, type ReactionOutput } from '#des/projections';
import type { Target, Trigger } from './action.decider';
import { ACTIONS } from './actions.projection';
import { deliveryStream, type Scheduled } from './delivery.decider';
import { environmentNotices } from './notices';

/**
 * Actions watch environments: each snapshot entry (started, exited, changed)
 * and each flip of an environment's compliance is matched against the
 * actions on that environment, and every (notice, action, target) becomes a
 * `notification_scheduled` in a delivery stream of its own. The delivery's id
 * derives from the environment event, the action and the target, so a
 * replay schedules nothing twice.
 */
export const actionTriggersReaction: Reaction = {
  name: 'action-triggers',
  async react(event, reads) {
    if (!event.stream.startsWith('environment-')) return [];
    if (event.type !== 'snapshot_created' && event.type !== 'compliance_changed') return [];
    const org = event.metadata.org as string;
    const environment = (event.data as { name: string }).name;
    const notices = environmentNotices(
      org,
      environment,
      { type: event.type, data: event.data } as EnvironmentEvent,
      microsToSeconds(event.recordedAt),
    );
    if (notices.length === 0) return [];
    const actions = await reads.find(ACTIONS, { org, environments: environment, deleted: false });
    const outputs: ReactionOutput[] = [];
    for (const action of actions) {
      // An action created after the event (the read models run ahead of this reaction) is not triggered by it.
      if ((action.created_position as number) > event.position) continue;
      const triggers = action.triggers as Trigger[];
      const flows = (action.flows as string[]) ?? [];
      for (const notice of notices) {
        if (!triggers.includes(notice.trigger)) continue;
        // A flow filter narrows the artifact triggers; the environment's own go to every action on it.
        const artifactNotice = notice.trigger.endsWith('_ARTIFACT');
        if (flows.length && artifactNotice && !notice.flows.some((f) => flows.includes(f))) continue;
        (action.targets as Target[]).forEach((target, targetIndex) => {
          const id = derivedId(event.id, `${action.number as number}/${notice.key}/${targetIndex}`);
          const scheduled: Scheduled = {
            id,
            action: action.number as number,
            action_name: action.name as string,
            target_index: targetIndex,
            target,
            trigger: notice.trigger,
            payload: notice.payload,
            source_event_id: event.id,
          };
          outputs.push({
            stream: deliveryStream(org, id),
            events: [
              {
                id: derivedId(id, 'scheduled'),
                type: 'notification_scheduled',
                data: scheduled,
                metadata: reactionMetadata(event, 'actions'),
              },
            ],
          });
        });
      }
    }
    return outputs;
  },
};
