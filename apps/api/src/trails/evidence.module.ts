import { Module } from '@nestjs/common';
import { FlowsController } from '../flows/flows.controller';
import { TrailsController } from './trails.controller';
import { TrailTimeMachineModule } from './trail-time-machine';
import { PDF_RENDERER, PdfRendererHost } from './pdf-renderer.provider';
import { ReposController } from '../repos/repos.controller';
import { AttestationTypesController } from '../attestation-types/attestation-types.controller';

/** Flows, trails, artifacts, attestations and custom attestation types. */
@Module({
  imports: [TrailTimeMachineModule],
  controllers: [FlowsController, TrailsController, AttestationTypesController, ReposController],
  providers: [PdfRendererHost, { provide: PDF_RENDERER, useExisting: PdfRendererHost }],
})
export class EvidenceModule {}
