import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chargeReadsTo } from '#des/read-store';
import { currentRequestId, inRequest } from './request-context';

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('the request context', () => {
  it('given concurrent requests, then each one, across its awaits, names its own id; outside any, none', async () => {
    const seen: string[] = [];
    const serve = (id: string) =>
      inRequest(id, async () => {
        await turn();
        // Authentication charges the reads in the same context: the id stays.
        chargeReadsTo(`org-of-${id}`);
        await turn();
        seen.push(`${id}:${currentRequestId()}`);
      });
    await Promise.all([serve('a'), serve('b'), serve('c')]);
    assert.deepEqual(seen.sort(), ['a:a', 'b:b', 'c:c']);
    assert.equal(currentRequestId(), undefined);
  });
});
