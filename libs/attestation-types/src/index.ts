export * from './attestation-types.module';
export * from './attestation-types.projection';
export * from './custom-evaluation';
export * from './attestation-type.commands';
