/** What `#des/attestation-types` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { attestationTypesFeature } from './attestation-types.module';
export { ATTESTATION_TYPES_COLLECTION, attestationTypeId } from './attestation-types.projection';
export { CustomEvaluator } from './custom-evaluation';
export { CustomEvaluationModule } from './custom-evaluation.module';
