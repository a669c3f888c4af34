/** What `#des/flows` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { type FlowTemplate } from './flow-template';
export { checkingTemplateFile } from './flow-template-file';
export { ChangeFlow } from './flow.commands';
export { FlowTimeMachine, FlowTimeMachineModule, type FlowAt } from './flow-time-machine';
export { flowDecider, flowStream, type FlowEvent, type FlowState } from './flow.decider';
export { flowsFeature } from './flows.module';
export { flowsProjection } from './flows.projection';
export { flowNamed, flowsNamed, flowsOf, type FlowDoc } from './flows.queries';
