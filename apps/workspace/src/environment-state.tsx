import type { Schemas } from './api';
import { Badge, Neutral } from './ui';

/**
 * An environment's compliance as an auditor reads it: one never reported
 * has no state to judge (the API's `state` is then true, as the spec has it).
 */
export function EnvironmentState({ environment }: { environment: Schemas['EnvironmentView'] }) {
  if (environment.type !== 'logical' && environment.last_reported_at === null)
    return <Neutral>no report yet</Neutral>;
  return <Badge ok={environment.state} yes="yes" no="no" />;
}
