import { Module } from '@nestjs/common';
import type { ServiceFeature } from '#des/platform';
import { EvidenceBundlesModule } from '#des/ledger';
import { TrailReportsModule, TrailTimeMachineModule } from '#des/trails';
import { ChangesBundleController } from './changes-bundle.controller';
import { ChangePopulation } from './change-population.service';
import { ChangesController } from './changes.controller';

/** The auditor's questions across features: the change population and its sample. */
@Module({
  imports: [TrailTimeMachineModule, TrailReportsModule, EvidenceBundlesModule],
  controllers: [ChangesController, ChangesBundleController],
  providers: [ChangePopulation],
})
export class AuditModule {}

export const auditFeature: ServiceFeature = { module: AuditModule };
