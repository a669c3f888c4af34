import { Module } from '@nestjs/common';
import type { ServiceFeature } from '#des/platform';
import { ReposController } from './repos.controller';

/** Repositories, as the trails' git information names them (the trails projection keeps them). */
@Module({ controllers: [ReposController] })
export class ReposModule {}

export const reposFeature: ServiceFeature = { module: ReposModule };
