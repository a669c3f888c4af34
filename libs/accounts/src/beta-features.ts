import { ApiError } from '#des/platform';
import type { ReadStore } from '#des/read-store';
import { ORGANIZATIONS } from './accounts.projection';
import type { Feature } from './organization.decider';

export const FEATURE_DISABLED = 'This feature is not enabled for your organization';

/** A beta feature answers 403 to an organization that does not have it. */
export async function requireFeature(reads: ReadStore, org: string, feature: Feature): Promise<void> {
  const organization = await reads.collection(ORGANIZATIONS).findOne({ _id: org });
  if (!(organization?.features as string[] | undefined)?.includes(feature))
    throw new ApiError(403, FEATURE_DISABLED);
}
