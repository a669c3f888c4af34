import { Module } from '@nestjs/common';
import { FlowsController } from '../flows/flows.controller';
import { TrailsController } from './trails.controller';

/** Flows, trails, artifacts and attestations. */
@Module({ controllers: [FlowsController, TrailsController] })
export class EvidenceModule {}
