/** What `#des/attestation-types` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { attestationTypesFeature } from './attestation-types.module';
export { attestationTypeNamed } from './attestation-types.queries';
export { CustomEvaluator } from './custom-evaluation';
export { CustomEvaluationModule } from './custom-evaluation.module';
