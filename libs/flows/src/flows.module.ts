import { Module } from '@nestjs/common';
import type { ServiceFeature } from '#des/platform';
import { FlowsController } from './flows.controller';
import { flowsProjection } from './flows.projection';

/** Flows and their templates. */
@Module({ controllers: [FlowsController] })
export class FlowsModule {}

export const flowsFeature: ServiceFeature = { module: FlowsModule, projections: [flowsProjection] };
