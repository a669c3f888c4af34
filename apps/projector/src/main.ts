import { runBackgroundProcess } from '../../../libs/platform/src/background-process';
import { allProjections, allReactions } from '../../api/src/projections';

/**
 * `npm run start:projector`: applies every projection to the read models,
 * holding the projector lease so exactly one instance is active.
 */
runBackgroundProcess('projector', { projections: allProjections, reactions: allReactions });
