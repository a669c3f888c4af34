import { runBackgroundProcess } from '#des/platform';
import { allProjections, allReactions, allUpcasters, projectorFeatureModules } from '#des/service';

/**
 * `npm run start:projector`: applies every projection to the read models,
 * holding the projector lease so exactly one instance is active, and runs the
 * transparency log's sequencer under its own lease.
 */
runBackgroundProcess(
  'projector',
  { projections: allProjections, reactions: allReactions, upcasters: allUpcasters },
  projectorFeatureModules,
);
