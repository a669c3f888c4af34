import type { Doc, DocReads } from '#des/read-store';
import { POLICIES, policyId } from './policies.projection';
import { readPolicy } from './policy-document';
import type { NamedPolicy } from './policy-evaluation';

/** A policy as the read models hold it: its versions, latest last. */
export interface PolicyDoc extends Doc {
  org: string;
  name: string;
  versions: { policy_yaml: string }[];
  /** The controls its attestation rules name (`for_control`). */
  controls?: string[];
}

/** The policies among `names` that exist. */
export async function policiesNamed(reads: DocReads, org: string, names: string[]): Promise<PolicyDoc[]> {
  if (names.length === 0) return [];
  return (await reads.find(POLICIES, { _id: { $in: names.map((n) => policyId(org, n)) } })) as PolicyDoc[];
}

/** The organization's policies by name; with `control`, those whose rules name that control. */
export async function policiesOf(reads: DocReads, org: string, control?: string): Promise<PolicyDoc[]> {
  const docs = (await reads.find(
    POLICIES,
    control === undefined ? { org } : { org, controls: control },
  )) as PolicyDoc[];
  // As the stores sort strings: by code unit, not by locale.
  return docs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Policies read, by policy id and version: a version never changes, so neither does what it reads as. */
const readPolicies = new Map<string, NamedPolicy['policy'] | null>();
const READ_POLICIES_KEPT = 500;

function policyVersion(id: string, version: number, text: string): NamedPolicy['policy'] | null {
  const key = `${id}#${version}`;
  let policy = readPolicies.get(key);
  if (policy === undefined) {
    const read = readPolicy(text);
    policy = 'policy' in read ? read.policy : null;
    if (readPolicies.size >= READ_POLICIES_KEPT) readPolicies.delete(readPolicies.keys().next().value!);
    readPolicies.set(key, policy);
  }
  return policy;
}

/** The latest version of each named policy, read, by name (a policy that no longer reads judges nothing). */
export async function latestPolicies(reads: DocReads, org: string, names: string[]): Promise<NamedPolicy[]> {
  const docs = await policiesNamed(reads, org, names);
  return docs
    .flatMap((doc) => {
      const versions = doc.versions;
      const policy = policyVersion(doc._id, versions.length, versions[versions.length - 1].policy_yaml);
      return policy ? [{ name: doc.name, policy }] : [];
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}
