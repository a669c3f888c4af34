import { Module } from '@nestjs/common';
import type { ServiceFeature } from '#des/platform';
import { EnvironmentsController } from './environments.controller';
import { EnvironmentPoliciesController } from './environment-policies.controller';
import { EnvironmentReportController } from './environment-report.controller';
import { environmentsProjection } from './environments.projection';
import { provenanceReaction } from './provenance.reaction';
import { complianceReaction } from './compliance.reaction';
import { AllowlistController } from './allowlist.controller';

/** Environments, Kubernetes reports → snapshots, deployments, the audit log and the environment's report. */
@Module({
  controllers: [
    EnvironmentsController,
    EnvironmentPoliciesController,
    EnvironmentReportController,
    AllowlistController,
  ],
})
export class EnvironmentsModule {}

export const environmentsFeature: ServiceFeature = {
  module: EnvironmentsModule,
  projections: [environmentsProjection],
  reactions: [provenanceReaction, complianceReaction],
};
