import { storedTags } from '#des/kernel';
import { aggregateEvent, type Projection } from '#des/projections';
import { flowStream, type FlowEvent } from './flow.decider';

export const FLOWS = 'flows';
export const flowId = (org: string, flow: string) => `${org}/${flow}`;

export const flowsProjection: Projection = {
  name: 'flows',
  sources: (org, flow) => (flow ? { streams: [flowStream(org, flow)] } : { prefixes: [`flow-${org}/`] }),
  collections: [{ name: FLOWS, indexes: [{ name: 'by_org', keys: { org: 1, name: 1 } }] }],
  project(stored) {
    const read = aggregateEvent<FlowEvent>(stored, 'flow');
    if (!read) return [];
    const { org, at, event } = read;
    switch (event.type) {
      case 'flow_created':
        return [
          {
            collection: FLOWS,
            id: flowId(org, event.data.name),
            update: {
              $set: {
                org,
                name: event.data.name,
                description: event.data.description,
                template: event.data.template,
                tags: storedTags(event.data.tags),
                archived: false,
                renamed_from: event.data.renamed_from ?? null,
                renamed_to: null,
                created_at: at,
                last_modified_at: at,
              },
            },
          },
        ];
      case 'flow_updated':
        return [
          {
            collection: FLOWS,
            id: flowId(org, event.data.name),
            update: {
              $set: {
                description: event.data.description,
                template: event.data.template,
                last_modified_at: at,
              },
            },
          },
        ];
      case 'flow_archived':
      case 'flow_unarchived':
        return [
          {
            collection: FLOWS,
            id: flowId(org, event.data.name),
            update: { $set: { archived: event.type === 'flow_archived', last_modified_at: at } },
          },
        ];
      case 'flow_renamed':
        // The old name's document stays (reads by the old name still answer it) but leaves the lists.
        return [
          {
            collection: FLOWS,
            id: flowId(org, event.data.name),
            update: { $set: { renamed_to: event.data.new_name, last_modified_at: at } },
          },
        ];
      case 'tags_changed':
        return [
          {
            collection: FLOWS,
            id: flowId(org, read.id),
            update: { $set: { tags: storedTags(event.data.tags), last_modified_at: at } },
          },
        ];
      default:
        return [];
    }
  },
};
