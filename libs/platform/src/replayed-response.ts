/**
 * A response recorded earlier, sent again as it was (an Idempotency-Key
 * replay). Thrown past the handler; the error filter writes it unchanged.
 */
export class ReplayedResponse extends Error {
  constructor(
    readonly status: number,
    readonly contentType: string | null,
    readonly body: string,
  ) {
    super('replayed response');
    this.name = 'ReplayedResponse';
  }
}
