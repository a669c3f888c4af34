import assert from 'node:assert/strict';
import type { ArgumentsHost } from '@nestjs/common';
import { describe, it } from 'node:test';
import { EventTooLargeError, StoreUnavailableError } from '#des/event-store';
import { DATABASE_UNAVAILABLE, RETRY_AFTER_SECONDS } from './api-error';
import { ErrorBodyFilter } from './error-body.filter';

/** What the filter answers for an exception: status, headers and body. */
function answer(exception: unknown) {
  const out = { status: 0, headers: {} as Record<string, string>, body: undefined as unknown };
  const res = {
    headersSent: false,
    setHeader: (k: string, v: string) => void (out.headers[k] = v),
    status(code: number) {
      out.status = code;
      return this;
    },
    json: (body: unknown) => void (out.body = body),
  };
  const host = {
    switchToHttp: () => ({ getResponse: () => res, getRequest: () => ({ id: 'req-1', complete: true }) }),
  } as unknown as ArgumentsHost;
  const filter = new ErrorBodyFilter();
  (filter as unknown as { logger: { warn(): void; error(): void } }).logger = { warn() {}, error() {} };
  filter.catch(exception, host);
  return out;
}

describe('ErrorBodyFilter', () => {
  it('answers an append over the event store limit 413 with a message that says so', () => {
    const direct = answer(new EventTooLargeError('environment-acme/prod', 2_000_000, 1_048_576));
    assert.equal(direct.status, 413);
    assert.deepEqual(direct.body, {
      message:
        "Request too large: the events it would record exceed the event store's limit of 1048576 bytes per write",
    });
    const wrapped = answer(
      new Error('command failed', { cause: new EventTooLargeError('s', undefined, 10) }),
    );
    assert.equal(wrapped.status, 413);
  });

  it("answers an unreachable store 503 with the spec's message and Retry-After", () => {
    for (const exception of [
      new StoreUnavailableError('KurrentDB', new Error('no answer')),
      new Error('wrapped', { cause: new StoreUnavailableError('SQLite') }),
    ]) {
      const out = answer(exception);
      assert.equal(out.status, 503);
      assert.deepEqual(out.body, { message: DATABASE_UNAVAILABLE });
      assert.equal(out.headers['Retry-After'], String(RETRY_AFTER_SECONDS));
    }
    assert.equal(DATABASE_UNAVAILABLE, 'Database temporarily unavailable; retry the request.');
  });
});
