import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import {
  MongoBulkWriteError,
  MongoClientClosedError,
  MongoError,
  MongoErrorLabel,
  MongoInvalidArgumentError,
  MongoNetworkError,
  MongoNetworkTimeoutError,
  MongoNotConnectedError,
  MongoParseError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoWriteConcernError,
} from 'mongodb';
import { StoreUnavailableError } from '#des/event-store';
import { isMongoUnavailable, translateMongoError } from './mongo-read-store';

/** The driver's connection-pool errors: real classes the driver throws but does not export by name. */
const pool = createRequire(__filename)('mongodb/lib/cmap/errors') as {
  PoolClearedError: new (pool: { address: string; serverError?: Error }) => MongoNetworkError;
  PoolClearedOnNetworkError: new (pool: { address: string }) => MongoNetworkError;
  PoolClosedError: new (pool: { address: string }) => MongoError;
  WaitQueueTimeoutError: new (message: string, address: string) => MongoError;
};

function withLabel<E extends MongoError>(error: E, label: string): E {
  error.addErrorLabel(label);
  return error;
}

const unavailable: [string, MongoError][] = [
  [
    'MongoPoolClearedError',
    new pool.PoolClearedError({
      address: 'db:27017',
      serverError: new MongoNetworkError('connection reset'),
    }),
  ],
  ['PoolClearedOnNetworkError', new pool.PoolClearedOnNetworkError({ address: 'db:27017' })],
  ['MongoPoolClosedError', new pool.PoolClosedError({ address: 'db:27017' })],
  [
    'MongoWaitQueueTimeoutError',
    new pool.WaitQueueTimeoutError('Timed out while checking out a connection', 'db:27017'),
  ],
  [
    'NotWritablePrimary (10107)',
    new MongoServerError({ ok: 0, code: 10107, codeName: 'NotWritablePrimary', errmsg: 'not primary' }),
  ],
  [
    'NotPrimaryNoSecondaryOk (13435)',
    new MongoServerError({ ok: 0, code: 13435, errmsg: 'not primary and secondaryOk=false' }),
  ],
  ['PrimarySteppedDown (189)', new MongoServerError({ ok: 0, code: 189, errmsg: 'primary stepped down' })],
  [
    'InterruptedDueToReplStateChange (11602)',
    new MongoServerError({ ok: 0, code: 11602, errmsg: 'interrupted' }),
  ],
  ['ShutdownInProgress (91)', new MongoServerError({ ok: 0, code: 91, errmsg: 'shutting down' })],
  ['legacy "not master" without a code', new MongoServerError({ ok: 0, errmsg: 'not master' })],
  [
    'RetryableWriteError label',
    new MongoServerError({
      ok: 0,
      code: 262,
      errmsg: 'x',
      errorLabels: [MongoErrorLabel.RetryableWriteError],
    }),
  ],
  [
    'ResetPool label',
    withLabel(new MongoServerError({ ok: 0, code: 1, errmsg: 'x' }), MongoErrorLabel.ResetPool),
  ],
  [
    'write concern: ShutdownInProgress',
    new MongoWriteConcernError({ ok: 1, writeConcernError: { code: 91, errmsg: 'shutdown' } }),
  ],
  ['MongoNetworkError', new MongoNetworkError('connection 4 to db:27017 closed')],
  ['MongoNetworkTimeoutError', new MongoNetworkTimeoutError('connection timed out')],
  [
    'MongoServerSelectionError',
    new MongoServerSelectionError('Server selection timed out after 3000 ms', {} as never),
  ],
  ['MongoTopologyClosedError', new MongoTopologyClosedError()],
  ['MongoNotConnectedError', new MongoNotConnectedError('not connected')],
  ['MongoClientClosedError', new MongoClientClosedError()],
];

const notUnavailable: [string, unknown][] = [
  [
    'duplicate key (11000)',
    new MongoServerError({ ok: 0, code: 11000, errmsg: 'E11000 duplicate key error' }),
  ],
  [
    'a bulk write refused by a unique index',
    new MongoBulkWriteError(
      { message: 'E11000', code: 11000, writeErrors: [] } as never,
      { insertedCount: 0 } as never,
    ),
  ],
  [
    'BadValue (2)',
    new MongoServerError({ ok: 0, code: 2, codeName: 'BadValue', errmsg: 'unknown operator' }),
  ],
  ['MongoInvalidArgumentError', new MongoInvalidArgumentError('bad argument')],
  ['MongoParseError', new MongoParseError('bad url')],
  ['a plain Error saying "not master"', new Error('not master')],
  ['a string', 'boom'],
];

describe('MongoDB errors: which mean "unavailable, retry" (503 with Retry-After)', () => {
  for (const [what, error] of unavailable) {
    it(`${what}: unavailable`, () => {
      assert.equal(isMongoUnavailable(error), true);
      const translated = translateMongoError(error);
      assert.ok(translated instanceof StoreUnavailableError, translated.name);
      assert.equal(translated.cause, error);
    });
  }
  for (const [what, error] of notUnavailable) {
    it(`${what}: not an outage`, () => {
      assert.equal(isMongoUnavailable(error), false);
      assert.ok(!(translateMongoError(error) instanceof StoreUnavailableError));
    });
  }
  it('the pool-cleared error is the class the driver throws (named MongoPoolClearedError, labelled for retry)', () => {
    const error = unavailable[0][1];
    assert.equal(error.name, 'MongoPoolClearedError');
    assert.ok(error.hasErrorLabel(MongoErrorLabel.PoolRequstedRetry));
  });
});
