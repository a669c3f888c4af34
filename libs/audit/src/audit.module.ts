import { Module } from '@nestjs/common';
import type { ServiceFeature } from '#des/platform';
import { TrailTimeMachineModule } from '#des/trails';
import { ChangePopulation } from './change-population.service';
import { ChangesController } from './changes.controller';

/** The auditor's questions across features: the change population and its sample. */
@Module({
  imports: [TrailTimeMachineModule],
  controllers: [ChangesController],
  providers: [ChangePopulation],
})
export class AuditModule {}

export const auditFeature: ServiceFeature = { module: AuditModule };
