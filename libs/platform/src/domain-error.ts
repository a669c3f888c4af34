/**
 * A refusal from domain code, answered with the spec's body. Plain (no Nest),
 * so deciders stay free of the framework; the error filter maps it.
 */
export class DomainError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: Record<string, string> | null = null,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}
