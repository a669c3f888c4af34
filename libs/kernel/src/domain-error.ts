/**
 * Why the domain refused a command, in its own words. The HTTP layer maps
 * each kind to a status (platform's error filter); the domain knows none.
 */
export type DomainErrorKind =
  /** The command's input is wrong (400). */
  | 'invalid'
  /** What the command names does not exist (404). */
  | 'not_found'
  /** The command conflicts with the state, e.g. a request still in flight (409). */
  | 'conflict'
  /** Well-formed, but the state cannot take it (422). */
  | 'unprocessable';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly errors: Record<string, string> | null = null,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}
