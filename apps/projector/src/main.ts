import { runBackgroundProcess } from '#des/platform';
import { allProjections, allReactions, allUpcasters } from '#des/service';

/**
 * `npm run start:projector`: applies every projection to the read models,
 * holding the projector lease so exactly one instance is active.
 */
runBackgroundProcess('projector', {
  projections: allProjections,
  reactions: allReactions,
  upcasters: allUpcasters,
});
