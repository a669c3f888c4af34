import type { Decider, DomainEvent, TagChange, Tags, TagsChanged } from '#des/kernel';
import { decideTagChange, DomainError } from '#des/kernel';
import type { FlowTemplate } from './flow-template';

export const flowStream = (org: string, flow: string) => `flow-${org}/${flow}`;

type FlowData = {
  description: string;
  template: FlowTemplate | null;
};

export type FlowEvent =
  | DomainEvent<'flow_created', FlowData & { name: string; tags: Record<string, string> }>
  | DomainEvent<'flow_updated', FlowData & { name: string }>
  | TagsChanged;

export interface PutFlow {
  name: string;
  description: string;
  template: FlowTemplate | null;
  tags: Record<string, string>;
}

export type FlowCommand =
  ({ kind: 'put_flow' } & PutFlow) | { kind: 'change_tags'; name: string; change: TagChange };

export interface FlowState {
  exists: boolean;
  description: string;
  template: FlowTemplate | null;
  tags: Tags;
}

export const flowDecider: Decider<FlowCommand, FlowState, FlowEvent> = {
  initialState: { exists: false, description: '', template: null, tags: {} },

  evolve(state, event) {
    switch (event.type) {
      case 'flow_created':
        return {
          exists: true,
          description: event.data.description,
          template: event.data.template,
          tags: event.data.tags,
        };
      case 'flow_updated':
        return { ...state, description: event.data.description, template: event.data.template };
      case 'tags_changed':
        return { ...state, tags: event.data.tags };
    }
  },

  decide(command, state) {
    if (command.kind === 'change_tags') {
      if (!state.exists) throw new DomainError('not_found', 'Resource not found');
      return decideTagChange(state.tags, command.change);
    }
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
  },
};
