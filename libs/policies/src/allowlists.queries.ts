import type { Doc, DocReads } from '#des/read-store';
import { ALLOWLISTS } from './allowlists.projection';

/** An artifact allowed in an environment, as the read models hold it. */
export interface AllowlistDoc extends Doc {
  org: string;
  environment: string;
  fingerprint: string;
  artifact_name: string;
  description: string;
  /** When it was last allowed (UNIX seconds). */
  allowed_at: number;
  created_at: number;
}

/** The artifacts allowed in `environment`, by fingerprint. */
export async function allowlistOf(
  reads: DocReads,
  org: string,
  environment: string,
): Promise<AllowlistDoc[]> {
  const docs = (await reads.find(ALLOWLISTS, { org, environment })) as AllowlistDoc[];
  return docs.sort((a, b) => (a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0));
}
