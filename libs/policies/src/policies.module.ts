import { Module } from '@nestjs/common';
import type { ServiceFeature } from '#des/platform';
import { PoliciesController } from './policies.controller';
import { policiesProjection } from './policies.projection';
import { allowlistsProjection } from './allowlists.projection';

/** Environment policies: uploaded YAML, validated and versioned; environments' allow-lists (their HTTP in environments). */
@Module({ controllers: [PoliciesController] })
export class PoliciesModule {}

export const policiesFeature: ServiceFeature = {
  module: PoliciesModule,
  projections: [policiesProjection, allowlistsProjection],
};
