import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { ServiceFeature } from '#des/platform';
import { accountCommandHandlers } from './accounts.commands';
import { accountsProjection } from './accounts.projection';
import { AuthGuard } from './auth.guard';
import { KeyUsageRecorder } from './key-usage';
import { OrganizationBootstrap } from './organization-bootstrap';
import { ServiceAccountsController } from './service-accounts.controller';

/** Organizations, authentication and authorization of every route, service accounts and API keys. */
@Module({
  controllers: [ServiceAccountsController],
  providers: [
    ...accountCommandHandlers,
    KeyUsageRecorder,
    OrganizationBootstrap,
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
  exports: [OrganizationBootstrap],
})
export class AccountsModule {}

export const accountsFeature: ServiceFeature = { module: AccountsModule, projections: [accountsProjection] };

/** The same commands without HTTP: for the CLI. */
@Module({
  providers: [...accountCommandHandlers, OrganizationBootstrap],
  exports: [OrganizationBootstrap],
})
export class AccountsCommandsModule {}
