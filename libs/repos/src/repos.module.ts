import { Module } from '@nestjs/common';
import type { ServiceFeature } from '#des/platform';
import { ReposController } from './repos.controller';
import { reposProjection } from './repos.projection';

/** Repositories, as the trails' git information names them, with their tags. */
@Module({ controllers: [ReposController] })
export class ReposModule {}

export const reposFeature: ServiceFeature = { module: ReposModule, projections: [reposProjection] };
