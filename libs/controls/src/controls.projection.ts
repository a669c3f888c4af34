import { storedTags } from '#des/kernel';
import { aggregateEvent, type Projection } from '#des/projections';
import type { ControlEvent } from './control.decider';

export const CONTROLS = 'controls';
export const controlId = (org: string, identifier: string) => `${org}/${identifier}`;

export const controlsProjection: Projection = {
  name: 'controls',
  sources: (org) => ({ prefixes: [`control-${org}/`] }),
  collections: [{ name: CONTROLS, indexes: [{ name: 'by_org', keys: { org: 1, identifier: 1 } }] }],
  project(stored) {
    const read = aggregateEvent<ControlEvent>(stored, 'control');
    if (!read) return [];
    const { org, at, event } = read;
    const id = controlId(org, read.id);
    switch (event.type) {
      case 'control_created': {
        const { identifier, name, description, links, created_by, version } = event.data;
        const fields = { org, identifier, name, description, links, version, created_by, tags: [] };
        return [
          {
            collection: CONTROLS,
            id,
            update: { $set: { ...fields, archived: false, created_at: at, last_modified_at: at } },
          },
        ];
      }
      case 'control_updated': {
        const { name, description, links, version } = event.data;
        return [
          {
            collection: CONTROLS,
            id,
            update: { $set: { name, description, links, version, last_modified_at: at } },
          },
        ];
      }
      case 'control_archived':
      case 'control_unarchived':
        return [
          {
            collection: CONTROLS,
            id,
            update: { $set: { archived: event.type === 'control_archived', last_modified_at: at } },
          },
        ];
      case 'tags_changed':
        return [
          {
            collection: CONTROLS,
            id,
            update: { $set: { tags: storedTags(event.data.tags), last_modified_at: at } },
          },
        ];
      default:
        return [];
    }
  },
};
