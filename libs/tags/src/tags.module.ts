import { Module } from '@nestjs/common';
import type { ServiceFeature } from '#des/platform';
import { TagsController } from './tags.controller';

/** The tag endpoint; the tags themselves are events of each tagged resource's stream. */
@Module({ controllers: [TagsController] })
export class TagsModule {}

export const tagsFeature: ServiceFeature = { module: TagsModule };
