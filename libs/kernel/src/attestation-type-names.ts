/**
 * The attestation types a flow template or an environment policy may name:
 * `*` (any type), a built-in type, or a custom type as `custom:<name>`.
 * (`decision` is a decision attestation, `system` on the wire.)
 */
export const NAMEABLE_ATTESTATION_TYPES = [
  '*',
  'generic',
  'junit',
  'snyk',
  'sonar',
  'pull_request',
  'jira',
  'decision',
] as const;

/** The pattern of a type a template or a policy names: one of the above, or `custom:<name>`. */
export const NAMEABLE_ATTESTATION_TYPE = `^(${NAMEABLE_ATTESTATION_TYPES.map((t) => t.replace('*', '\\*')).join('|')}|custom:[a-zA-Z0-9][a-zA-Z0-9\\-_.~]*)$`;
