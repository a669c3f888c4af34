import { Module } from '@nestjs/common';
import type { ServiceFeature } from '#des/platform';
import { LedgerController } from './ledger.controller';

/** Tamper evidence: the head of each organization's hash chain, now or at an instant. */
@Module({ controllers: [LedgerController] })
export class LedgerModule {}

export const ledgerFeature: ServiceFeature = { module: LedgerModule };
