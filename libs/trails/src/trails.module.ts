import { Module } from '@nestjs/common';
import type { ServiceFeature } from '#des/platform';
import { AttestationsController } from './attestations.controller';
import { AttestationReadsController } from './attestation-reads.controller';
import { attestationsProjection } from './attestations.projection';
import { TrailArtifactsController } from './trail-artifacts.controller';
import { TrailAttachmentsController } from './trail-attachments.controller';
import { TrailAuditController } from './trail-audit.controller';
import { TrailAuditPdf } from './trail-audit-pdf';
import { TrailBundleController } from './trail-bundle.controller';
import { EvidenceBundlesModule } from '#des/ledger';
import { TrailReads } from './trail-reads';
import { TrailsController } from './trails.controller';
import { TrailTimeMachineModule } from './trail-time-machine';
import { CustomEvaluationModule } from '#des/attestation-types';
import { trailsProjection } from './trails.projection';
import { TrailTimelineQuery } from './trail-timeline.query';

/** A trail's audit PDF, for the features whose exports carry it (a change bundle). */
@Module({
  imports: [TrailTimeMachineModule],
  providers: [TrailReads, TrailTimelineQuery, TrailAuditPdf],
  exports: [TrailReads, TrailTimelineQuery, TrailAuditPdf],
})
export class TrailReportsModule {}

/** Trails, their artifacts and attestations, the trail's audit PDF and its evidence bundle. */
@Module({
  imports: [TrailTimeMachineModule, TrailReportsModule, CustomEvaluationModule, EvidenceBundlesModule],
  controllers: [
    TrailsController,
    TrailArtifactsController,
    AttestationsController,
    AttestationReadsController,
    TrailAuditController,
    TrailAttachmentsController,
    TrailBundleController,
  ],
})
export class TrailsModule {}

export const trailsFeature: ServiceFeature = {
  module: TrailsModule,
  projections: [trailsProjection, attestationsProjection],
};
