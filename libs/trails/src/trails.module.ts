import { Module } from '@nestjs/common';
import type { ServiceFeature } from '#des/platform';
import { AttestationsController } from './attestations.controller';
import { TrailArtifactsController } from './trail-artifacts.controller';
import { TrailAttachmentsController } from './trail-attachments.controller';
import { TrailAuditController } from './trail-audit.controller';
import { TrailReads } from './trail-reads';
import { TrailsController } from './trails.controller';
import { TrailTimeMachineModule } from './trail-time-machine';
import { CustomEvaluationModule } from '#des/attestation-types';
import { trailsProjection } from './trails.projection';
import { TrailTimelineQuery } from './trail-timeline.query';

/** Trails, their artifacts and attestations, and the trail's audit PDF. */
@Module({
  imports: [TrailTimeMachineModule, CustomEvaluationModule],
  controllers: [
    TrailsController,
    TrailArtifactsController,
    AttestationsController,
    TrailAuditController,
    TrailAttachmentsController,
  ],
  providers: [TrailReads, TrailTimelineQuery],
})
export class TrailsModule {}

export const trailsFeature: ServiceFeature = { module: TrailsModule, projections: [trailsProjection] };
