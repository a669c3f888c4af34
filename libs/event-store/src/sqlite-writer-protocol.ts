import { AppendResult, ExpectedRevision, WrongExpectedRevisionError } from './event-store.port';
import type { AppendRequest } from './sqlite-writer';

/** Messages between the SQLite store and its writer thread. */
export type WriterRequest =
  { op: 'commit'; seq: number; batch: AppendRequest[] } | { op: 'durability'; seq: number } | { op: 'close' };

export type WriterReply =
  | { seq: number; outcomes: ({ ok: AppendResult; replayed?: true } | { error: EncodedError })[] }
  | { seq: number; durability: { journalMode: string; synchronous: number } }
  | { seq: number; failure: EncodedError };

/** An error as it crosses the thread boundary: a conflict keeps its fields, an SQLite error its code. */
export type EncodedError =
  | { kind: 'wrong_revision'; stream: string; expected: ExpectedRevision; actual: number | 'no_stream' }
  | { kind: 'error'; message: string; code?: string };

export function encodeError(error: unknown): EncodedError {
  if (error instanceof WrongExpectedRevisionError)
    return { kind: 'wrong_revision', stream: error.stream, expected: error.expected, actual: error.actual };
  const code = (error as { code?: unknown }).code;
  return {
    kind: 'error',
    message: error instanceof Error ? error.message : String(error),
    ...(typeof code === 'string' ? { code } : {}),
  };
}

export function decodeError(encoded: EncodedError): Error {
  if (encoded.kind === 'wrong_revision')
    return new WrongExpectedRevisionError(encoded.stream, encoded.expected, encoded.actual);
  return Object.assign(new Error(encoded.message), encoded.code ? { code: encoded.code } : {});
}
