export * from './attestation-types.module';
export * from './attestation-types.projection';
export * from './custom-evaluation';
export * from './custom-evaluation.module';
export * from './custom-type-limits';
export * from './attestation-type.commands';
