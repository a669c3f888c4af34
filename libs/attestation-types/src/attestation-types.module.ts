import { Module } from '@nestjs/common';
import type { ServiceFeature } from '#des/platform';
import { AttestationTypesController } from './attestation-types.controller';
import { attestationTypesProjection } from './attestation-types.projection';
import { CustomEvaluationModule } from './custom-evaluation.module';

/** Custom attestation types: a JSON schema and jq rules that decide an attestation's compliance. */
@Module({ imports: [CustomEvaluationModule], controllers: [AttestationTypesController] })
export class AttestationTypesModule {}

export const attestationTypesFeature: ServiceFeature = {
  module: AttestationTypesModule,
  projections: [attestationTypesProjection],
};
