import { Module } from '@nestjs/common';
import type { ServiceFeature } from '#des/platform';
import { ControlsController } from './controls.controller';
import { controlsProjection } from './controls.projection';

/** Controls (beta): versioned compliance controls, with tags. */
@Module({ controllers: [ControlsController] })
export class ControlsModule {}

export const controlsFeature: ServiceFeature = { module: ControlsModule, projections: [controlsProjection] };
