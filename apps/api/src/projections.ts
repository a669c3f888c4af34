import { Projection, Reaction, streamStatsProjection } from '../../../libs/projections/src';
import { provenanceReaction } from './trails/provenance.reaction';
import { accountsProjection } from './accounts/accounts.projection';
import { environmentsProjection } from './environments/environments.projection';
import { flowsProjection } from './flows/flows.projection';
import { trailsProjection } from './trails/trails.projection';
import { evaluationsProjection } from './evaluations/evaluations.projection';
import { attestationTypesProjection } from './attestation-types/attestation-types.projection';

/** Every read model of the service; the projector runs them, the CLI rebuilds them. */
export const allProjections: Projection[] = [
  streamStatsProjection,
  accountsProjection,
  environmentsProjection,
  flowsProjection,
  trailsProjection,
  attestationTypesProjection,
  evaluationsProjection,
];

/** Every reaction: run by the projector after each batch. */
export const allReactions: Reaction[] = [provenanceReaction];
