import type { Type } from '@nestjs/common';
import type { Upcaster } from '#des/event-store';
import type { Config, QueueConsumer, ServiceFeature } from '#des/platform';
import { Projection, Reaction, streamStatsProjection } from '#des/projections';
import { accountsFeature, TenantAccountingModule } from '#des/accounts';
import { idempotencyFeature } from '#des/idempotency';
import { environmentsFeature } from '#des/environments';
import { flowsFeature } from '#des/flows';
import { trailsFeature } from '#des/trails';
import { attestationTypesFeature } from '#des/attestation-types';
import { reposFeature } from '#des/repos';
import { evaluationsFeature } from '#des/evaluations';
import { controlsFeature } from '#des/controls';
import { tagsFeature } from '#des/tags';
import { policiesFeature } from '#des/policies';
import { actionsFeature } from '#des/actions';
import { ledgerFeature, LedgerSequencerModule } from '#des/ledger';
import { kosliCompatFeature } from '#des/kosli-compat';
import { auditFeature } from '#des/audit';

/** Every feature of the service, once; a new feature library joins here. */
export const features: ServiceFeature[] = [
  accountsFeature,
  idempotencyFeature,
  environmentsFeature,
  flowsFeature,
  trailsFeature,
  attestationTypesFeature,
  reposFeature,
  evaluationsFeature,
  controlsFeature,
  tagsFeature,
  policiesFeature,
  actionsFeature,
  ledgerFeature,
  kosliCompatFeature,
  auditFeature,
];

/** Every read model of the service; the projector runs them, the CLI rebuilds them. */
export const allProjections: Projection[] = [
  streamStatsProjection,
  ...features.flatMap((f) => f.projections ?? []),
];

/** Every reaction, built for `config`: run by the projector after each batch. */
export const allReactions = (config: Config): Reaction[] =>
  features.flatMap((f) => (f.reactions ?? []).map((r) => (typeof r === 'function' ? r(config) : r)));

/** Every feature's upcasters: every process reads the log through them. */
export const allUpcasters: Upcaster[] = features.flatMap((f) => f.upcasters ?? []);

/** Every queue consumer: started by the worker role. */
export const allQueueConsumers: Type<QueueConsumer>[] = features.flatMap((f) => f.queueConsumers ?? []);

/** The feature modules that provide the queue consumers (what a worker process loads). */
/** What the projector process runs besides the projections: the transparency log's sequencer. */
export const projectorFeatureModules: Type[] = [LedgerSequencerModule];

export const workerFeatureModules: Type[] = [
  // Workers schedule each organization's jobs by its own limits, not only the defaults.
  TenantAccountingModule,
  ...features.filter((f) => f.queueConsumers?.length).map((f) => f.module),
];
