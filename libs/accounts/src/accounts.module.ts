import { DefaultOrgController } from './default-org.controller';
import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { ServiceFeature } from '#des/platform';
import { accountCommandHandlers } from './accounts.commands';
import { accountsProjection } from './accounts.projection';
import { AuthGuard } from './auth.guard';
import { KeyLookups } from './key-lookups';
import { KeyUsageRecorder } from './key-usage';
import { OrganizationBootstrap } from './organization-bootstrap';
import { ServiceAccountsController } from './service-accounts.controller';
import { TenantAccounting } from './tenant-accounting';
import { tenantUsageProjection } from './tenant-usage.projection';
import { WriteRateGuard } from './write-rate.guard';

/**
 * Each organization's limits and usage as the platform's TENANT_LIMITS and
 * TENANT_USAGE: every process that serves or works for organizations loads it.
 */
@Module({ providers: [TenantAccounting] })
export class TenantAccountingModule {}

/** Organizations, authentication and authorization of every route, service accounts and API keys. */
@Module({
  imports: [TenantAccountingModule],
  controllers: [ServiceAccountsController, DefaultOrgController],
  providers: [
    ...accountCommandHandlers,
    KeyUsageRecorder,
    KeyLookups,
    OrganizationBootstrap,
    // In this order: the write rate is counted for callers already authenticated.
    { provide: APP_GUARD, useClass: AuthGuard },
    { provide: APP_GUARD, useClass: WriteRateGuard },
  ],
  exports: [OrganizationBootstrap],
})
export class AccountsModule {}

export const accountsFeature: ServiceFeature = {
  module: AccountsModule,
  projections: [accountsProjection, tenantUsageProjection],
};

/** The same commands without HTTP: for the CLI. */
@Module({
  providers: [...accountCommandHandlers, OrganizationBootstrap],
  exports: [OrganizationBootstrap],
})
export class AccountsCommandsModule {}
