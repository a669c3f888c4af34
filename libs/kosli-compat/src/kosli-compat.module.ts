import { Module } from '@nestjs/common';
import type { ServiceFeature } from '#des/platform';
import { ArtifactsController } from './artifacts.controller';
import { AssertsController } from './asserts.controller';
import { SnapshotsController } from './snapshots.controller';

/**
 * Routes the Kosli CLI calls that the spec does not name, over the read
 * models the spec's routes keep: snapshots by the CLI's references and in the
 * shape it decodes, environment diffs, compliance asserts and search.
 */
@Module({ controllers: [SnapshotsController, AssertsController, ArtifactsController] })
export class KosliCompatModule {}

export const kosliCompatFeature: ServiceFeature = { module: KosliCompatModule };
