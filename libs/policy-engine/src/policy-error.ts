/** Why an evaluation failed: a broken policy, a policy over its budget, or our own fault. */
export type PolicyErrorKind = 'policy_error' | 'timeout' | 'service_error';

export class PolicyError extends Error {
  constructor(
    readonly kind: PolicyErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'PolicyError';
  }
}
