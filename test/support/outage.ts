import assert from 'node:assert/strict';
import type { Response } from 'supertest';

/** The spec's answer to an unreachable engine: 503, its exact body, and when to retry. */
export function assertDatabaseUnavailable(res: Response): void {
  assert.equal(res.status, 503, JSON.stringify(res.body));
  assert.deepEqual(res.body, {
    message: 'Database temporarily unavailable; retry the request.',
  });
  assert.equal(res.headers['retry-after'], '5');
}
