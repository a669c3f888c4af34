import { Projection, streamStatsProjection } from '../../../libs/projections/src';

/** Every read model of the service; the projector runs them, the CLI rebuilds them. */
export const allProjections: Projection[] = [streamStatsProjection];
