import type { Decider, DomainEvent, TagChange, Tags, TagsChanged } from '#des/kernel';
import { decideTagChange, DomainError } from '#des/kernel';
import type { FlowTemplate } from './flow-template';

export const flowStream = (org: string, flow: string) => `flow-${org}/${flow}`;

type FlowData = {
  description: string;
  template: FlowTemplate | null;
};

export type FlowEvent =
  | DomainEvent<
      'flow_created',
      FlowData & {
        name: string;
        tags: Record<string, string>;
        /** Set when the flow was made by renaming the flow of this name (ADR 0028). */
        renamed_from?: string;
      }
    >
  | DomainEvent<'flow_updated', FlowData & { name: string }>
  | DomainEvent<'flow_archived', { name: string }>
  | DomainEvent<'flow_unarchived', { name: string }>
  /** In the stream of the old name: the flow now lives under `new_name`; the old name is free. */
  | DomainEvent<'flow_renamed', { name: string; new_name: string }>
  | TagsChanged;

export interface PutFlow {
  name: string;
  description: string;
  template: FlowTemplate | null;
  tags: Record<string, string>;
}

export type FlowCommand =
  | ({ kind: 'put_flow' } & PutFlow)
  | { kind: 'change_tags'; name: string; change: TagChange }
  | { kind: 'archive_flow'; name: string }
  | { kind: 'unarchive_flow'; name: string }
  /** To the old name's stream, once the new name holds the flow. */
  | { kind: 'rename_flow'; name: string; newName: string }
  /** To the new name's stream: the renamed flow, with what it held under `from`. */
  | ({ kind: 'receive_renamed_flow'; from: string } & PutFlow);

export interface FlowState {
  exists: boolean;
  archived: boolean;
  description: string;
  template: FlowTemplate | null;
  tags: Tags;
  /** The name it came from, when it was made by a rename. */
  renamedFrom: string | null;
  /** The name it went to, when the flow last under this name was renamed (then `exists` is false). */
  renamedTo: string | null;
}

export const FLOW_NOT_FOUND = 'Flow not found';
export const flowArchived = (name: string) =>
  `Flow '${name}' is archived; unarchive it (PUT /flows/{org}/${name}/unarchive) to change it`;
export const flowNameTaken = (name: string) => `A flow named '${name}' already exists`;

export const flowDecider: Decider<FlowCommand, FlowState, FlowEvent> = {
  initialState: {
    exists: false,
    archived: false,
    description: '',
    template: null,
    tags: {},
    renamedFrom: null,
    renamedTo: null,
  },

  evolve(state, event) {
    switch (event.type) {
      case 'flow_created':
        return {
          exists: true,
          archived: false,
          description: event.data.description,
          template: event.data.template,
          tags: event.data.tags,
          renamedFrom: event.data.renamed_from ?? null,
          renamedTo: null,
        };
      case 'flow_updated':
        return { ...state, description: event.data.description, template: event.data.template };
      case 'flow_archived':
        return { ...state, archived: true };
      case 'flow_unarchived':
        return { ...state, archived: false };
      case 'flow_renamed':
        return { ...flowDecider.initialState, renamedTo: event.data.new_name };
      case 'tags_changed':
        return { ...state, tags: event.data.tags };
    }
  },

  decide(command, state) {
    switch (command.kind) {
      case 'change_tags':
        if (!state.exists) throw new DomainError('not_found', 'Resource not found');
        if (state.archived) throw new DomainError('invalid', flowArchived(command.name));
        return decideTagChange(state.tags, command.change);
      case 'archive_flow':
        if (!state.exists) throw new DomainError('not_found', FLOW_NOT_FOUND);
        return state.archived ? [] : [{ type: 'flow_archived', data: { name: command.name } }];
      case 'unarchive_flow':
        if (!state.exists) throw new DomainError('not_found', FLOW_NOT_FOUND);
        return state.archived ? [{ type: 'flow_unarchived', data: { name: command.name } }] : [];
      case 'rename_flow':
        if (!state.exists) {
          // A retry of a rename already done changes nothing.
          if (state.renamedTo === command.newName) return [];
          throw new DomainError('not_found', FLOW_NOT_FOUND);
        }
        if (state.archived) throw new DomainError('invalid', flowArchived(command.name));
        return [{ type: 'flow_renamed', data: { name: command.name, new_name: command.newName } }];
      case 'receive_renamed_flow': {
        if (state.exists) {
          if (state.renamedFrom === command.from) return [];
          throw new DomainError('invalid', flowNameTaken(command.name));
        }
        const { name, description, template, tags, from } = command;
        return [{ type: 'flow_created', data: { name, description, template, tags, renamed_from: from } }];
      }
      case 'put_flow':
        return decidePut(command, state);
    }
  },
};

function decidePut(command: PutFlow, state: FlowState): FlowEvent[] {
  if (!state.exists) {
    return [
      {
        type: 'flow_created',
        data: {
          name: command.name,
          description: command.description,
          template: command.template,
          tags: command.tags,
        },
      },
    ];
  }
  if (state.archived) throw new DomainError('invalid', flowArchived(command.name));
  const same =
    state.description === command.description &&
    JSON.stringify(state.template) === JSON.stringify(command.template);
  if (same) return [];
  return [
    {
      type: 'flow_updated',
      data: { name: command.name, description: command.description, template: command.template },
    },
  ];
}
