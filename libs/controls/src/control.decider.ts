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
  | DomainEvent<'control_archived', { identifier: string }>
  | DomainEvent<'control_unarchived', { identifier: string }>
  | TagsChanged;

export type ControlCommand =
  | ({ kind: 'create_control'; identifier: string; createdBy: string } & ControlFields)
  /** Fields left out keep their value. */
  | ({ kind: 'update_control'; identifier: string } & Partial<ControlFields>)
  | { kind: 'change_tags'; identifier: string; change: TagChange }
  | { kind: 'archive_control'; identifier: string }
  | { kind: 'unarchive_control'; identifier: string };

export interface ControlState {
  exists: boolean;
  fields: ControlFields;
  version: number;
  tags: Tags;
  archived: boolean;
}

export const CONTROL_NOT_FOUND = 'Control not found';
export const controlArchived = (identifier: string) =>
  `Control '${identifier}' is archived; unarchive it (POST /controls/{org}/${identifier}/unarchive) to change it`;

const same = (a: ControlFields, b: ControlFields) =>
  a.name === b.name && a.description === b.description && JSON.stringify(a.links) === JSON.stringify(b.links);

/** A compliance control (beta): versioned on each change of its fields; tags beside. */
export const controlDecider: Decider<ControlCommand, ControlState, ControlEvent> = {
  initialState: {
    exists: false,
    fields: { name: '', description: '', links: {} },
    version: 0,
    tags: {},
    archived: false,
  },

  evolve(state, event) {
    switch (event.type) {
      case 'control_created':
      case 'control_updated': {
        const { name, description, links, version } = event.data;
        return { ...state, exists: true, fields: { name, description, links }, version };
      }
      case 'control_archived':
        return { ...state, archived: true };
      case 'control_unarchived':
        return { ...state, archived: false };
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
        if (state.archived) throw new DomainError('invalid', controlArchived(command.identifier));
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
        if (state.archived) throw new DomainError('invalid', controlArchived(command.identifier));
        return decideTagChange(state.tags, command.change);
      }
      case 'archive_control':
        if (!state.exists) throw new DomainError('not_found', CONTROL_NOT_FOUND);
        return state.archived ? [] : [{ type: 'control_archived', data: { identifier: command.identifier } }];
      case 'unarchive_control':
        if (!state.exists) throw new DomainError('not_found', CONTROL_NOT_FOUND);
        return state.archived
          ? [{ type: 'control_unarchived', data: { identifier: command.identifier } }]
          : [];
    }
  },
};
