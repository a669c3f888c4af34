import { Module } from '@nestjs/common';
import type { ServiceFeature } from '#des/platform';
import { ledgerCheckpointsProjection } from './checkpoints.projection';
import { LedgerController } from './ledger.controller';
import { LedgerSequencerService } from './ledger-sequencer.service';
import { EvidenceBundles } from './evidence-bundles';

/**
 * Tamper evidence: each organization's hash chain head, and its transparency
 * log (RFC 9162 tree, signed checkpoints, proofs; ADR 0024).
 */
/** The sequencer alone, for the projector process (which serves no HTTP). */
@Module({ providers: [LedgerSequencerService] })
export class LedgerSequencerModule {}

/** Evidence bundles, for the features whose records they carry (a trail, the change population). */
@Module({ providers: [EvidenceBundles], exports: [EvidenceBundles] })
export class EvidenceBundlesModule {}

@Module({ imports: [LedgerSequencerModule], controllers: [LedgerController] })
export class LedgerModule {}

export const ledgerFeature: ServiceFeature = {
  module: LedgerModule,
  projections: [ledgerCheckpointsProjection],
};
