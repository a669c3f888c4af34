import type { Decider, DomainEvent } from '#des/platform';
import type { FlowTemplate } from './flow-template';

export const flowStream = (org: string, flow: string) => `flow-${org}/${flow}`;

type FlowData = {
  description: string;
  template: FlowTemplate | null;
};

export type FlowEvent =
  | DomainEvent<'flow_created', FlowData & { name: string; tags: Record<string, string> }>
  | DomainEvent<'flow_updated', FlowData & { name: string }>;

export interface PutFlow {
  name: string;
  description: string;
  template: FlowTemplate | null;
  tags: Record<string, string>;
}

export interface FlowState {
  exists: boolean;
  description: string;
  template: FlowTemplate | null;
}

export const flowDecider: Decider<PutFlow, FlowState, FlowEvent> = {
  initialState: { exists: false, description: '', template: null },

  evolve(state, event) {
    return { exists: true, description: event.data.description, template: event.data.template };
  },

  decide(command, state) {
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
