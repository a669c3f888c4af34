import type { Decider, DomainEvent, TagChange, Tags, TagsChanged } from '#des/kernel';
import { decideTagChange, DomainError } from '#des/kernel';

export const controlStream = (org: string, identifier: string) => `control-${org}/${identifier}`;

/** Named links (name → URL) to where the control is defined. */
export type Links = Record<string, string>;

type ControlFields = {
  name: string;
  description: string;
  links: Links;
};

export type ControlEvent =
  | DomainEvent<'control_created', ControlFields & { identifier: string; created_by: string; version: 1 }>
  | DomainEvent<'control_updated', ControlFields & { identifier: string; version: number }>
  | TagsChanged;

export type ControlCommand =
  | ({ kind: 'create_control'; identifier: string; createdBy: string } & ControlFields)
  /** Fields left out keep their value. */
  | ({ kind: 'update_control'; identifier: string } & Partial<ControlFields>)
  | { kind: 'change_tags'; identifier: string; change: TagChange };

export interface ControlState {
  exists: boolean;
  fields: ControlFields;
  version: number;
  tags: Tags;
}

export const CONTROL_NOT_FOUND = 'Control not found';

const same = (a: ControlFields, b: ControlFields) =>
  a.name === b.name && a.description === b.description && JSON.stringify(a.links) === JSON.stringify(b.links);

/** A compliance control (beta): versioned on each change of its fields; tags beside. */
export const controlDecider: Decider<ControlCommand, ControlState, ControlEvent> = {
  initialState: { exists: false, fields: { name: '', description: '', links: {} }, version: 0, tags: {} },

  evolve(state, event) {
    switch (event.type) {
      case 'control_created':
      case 'control_updated': {
        const { name, description, links, version } = event.data;
        return { ...state, exists: true, fields: { name, description, links }, version };
      }
      case 'tags_changed':
        return { ...state, tags: event.data.tags };
    }
  },

  decide(command, state) {
    switch (command.kind) {
      case 'create_control': {
        if (state.exists) {
          throw new DomainError('invalid', 'Input payload validation failed', {
            identifier: `a control '${command.identifier}' already exists; update it with PUT`,
          });
        }
        const { identifier, name, description, links, createdBy } = command;
        return [
          {
            type: 'control_created',
            data: { identifier, name, description, links, created_by: createdBy, version: 1 },
          },
        ];
      }
      case 'update_control': {
        if (!state.exists) throw new DomainError('not_found', CONTROL_NOT_FOUND);
        const fields: ControlFields = {
          name: command.name ?? state.fields.name,
          description: command.description ?? state.fields.description,
          links: command.links ?? state.fields.links,
        };
        if (same(fields, state.fields)) return [];
        return [
          {
            type: 'control_updated',
            data: { identifier: command.identifier, ...fields, version: state.version + 1 },
          },
        ];
      }
      case 'change_tags': {
        if (!state.exists) throw new DomainError('not_found', 'Resource not found');
        return decideTagChange(state.tags, command.change);
      }
    }
  },
};
