import { readPolicy } from './policy-document';
import type { NamedPolicy } from './policy-evaluation';

export const SCHEMA_LINE = '_schema: https://kosli.com/schemas/policy/environment/v1\n';

/** Provenance and trail compliance required, except for the Datadog agent's images. */
export const PROVENANCE_RULES = `artifacts:
  provenance:
    required: true
    exceptions:
      - if: \${{ matches(artifact.name, "^datadog/") }}
  trail-compliance:
    required: true
`;

/** A policy from the YAML that follows its `_schema` line; throws on a policy that does not validate. */
export function namedPolicy(name: string, yaml: string): NamedPolicy {
  const read = readPolicy(SCHEMA_LINE + yaml);
  if (!('policy' in read)) throw new Error(`${name}: ${JSON.stringify(read.errors)}`);
  return { name, policy: read.policy };
}
