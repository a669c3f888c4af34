/** What `#des/actions` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { ChangeDelivery } from './action.commands';
export { actionsFeature } from './actions.module';
export { deliveryDecider, deliveryStream } from './delivery.decider';
export { verifySignature } from './signing';
