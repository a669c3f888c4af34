import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import type { ArgumentsHost } from '@nestjs/common';
import { MongoNetworkError, MongoServerError } from 'mongodb';
import { translateMongoError } from '#des/read-store';
import { ErrorBodyFilter } from './error-body.filter';

const { PoolClearedError } = createRequire(__filename)('mongodb/lib/cmap/errors') as {
  PoolClearedError: new (pool: { address: string; serverError?: Error }) => MongoNetworkError;
};

/** What the filter answers for an error (an express response that records what it is told). */
function answer(error: unknown) {
  const sent = { status: 0, headers: {} as Record<string, string>, body: undefined as unknown };
  const res = {
    headersSent: false,
    setHeader: (name: string, value: string) => void (sent.headers[name] = value),
    status: (code: number) => ((sent.status = code), res),
    json: (body: unknown) => void (sent.body = body),
  };
  const host = {
    switchToHttp: () => ({ getResponse: () => res, getRequest: () => ({ id: 'req-1', complete: true }) }),
  } as unknown as ArgumentsHost;
  new ErrorBodyFilter().catch(error, host);
  return { status: sent.status, body: sent.body, retryAfter: sent.headers['Retry-After'] };
}

const DATABASE_UNAVAILABLE = {
  status: 503,
  body: { message: 'Database temporarily unavailable; retry the request.' },
  retryAfter: '5',
};

describe('ErrorBodyFilter: MongoDB outages answer 503 with Retry-After', () => {
  const poolCleared = () =>
    new PoolClearedError({ address: 'db:27017', serverError: new MongoNetworkError('connection reset') });
  const notWritablePrimary = () =>
    new MongoServerError({ ok: 0, code: 10107, codeName: 'NotWritablePrimary', errmsg: 'not primary' });

  it('a pool cleared under an operation, as the read store translates it', () => {
    assert.deepEqual(answer(translateMongoError(poolCleared())), DATABASE_UNAVAILABLE);
  });
  it('a primary that stepped down (NotWritablePrimary), as the read store translates it', () => {
    assert.deepEqual(answer(translateMongoError(notWritablePrimary())), DATABASE_UNAVAILABLE);
  });
  it('the same driver errors, should one escape untranslated or as a cause', () => {
    assert.deepEqual(answer(poolCleared()), DATABASE_UNAVAILABLE);
    assert.deepEqual(
      answer(new Error('reading the trail failed', { cause: notWritablePrimary() })),
      DATABASE_UNAVAILABLE,
    );
  });
  it('a refused write is not an outage: 500, nothing of it said', () => {
    const duplicate = new MongoServerError({ ok: 0, code: 11000, errmsg: 'E11000 duplicate key error' });
    assert.deepEqual(answer(duplicate), {
      status: 500,
      body: { message: 'Internal server error' },
      retryAfter: undefined,
    });
  });
});
