/** What `#des/policies` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { policiesFeature } from './policies.module';
export { policiesProjection } from './policies.projection';
export { latestPolicies, policiesNamed, policiesOf, type PolicyDoc } from './policies.queries';
export { readPolicy } from './policy-document';
export {
  evaluatePolicy,
  judgeArtifact,
  policyAttestationType,
  type ArtifactFacts,
  type NamedPolicy,
  type PolicyEvaluation,
} from './policy-evaluation';
export { parseExpression } from './policy-expression';
export { ChangeAllowlist } from './allowlist.commands';
export {
  allowlistDecider,
  allowlistStream,
  type AllowlistEntry,
  type AllowlistEvent,
} from './allowlist.decider';
export { allowlistsProjection } from './allowlists.projection';
export { allowlistOf, type AllowlistDoc } from './allowlists.queries';
