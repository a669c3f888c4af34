import type { Doc, DocReads } from '#des/read-store';
import { ATTESTATION_TYPES_COLLECTION, attestationTypeId } from './attestation-types.projection';

/** The custom attestation type named `name` as the read models hold it (archived ones too), or null. */
export function attestationTypeNamed(reads: DocReads, org: string, name: string): Promise<Doc | null> {
  return reads.get(ATTESTATION_TYPES_COLLECTION, attestationTypeId(org, name));
}
