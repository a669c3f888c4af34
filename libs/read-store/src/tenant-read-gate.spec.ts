import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chargeReadsTo, inReadScope, scopeRequestId, TenantReadGate } from './tenant-read-gate';

/** A query that stays in flight until `finish` is called. */
function heldQuery() {
  let finish!: () => void;
  let started = false;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    run: () => {
      started = true;
      return done;
    },
    get started() {
      return started;
    },
    finish: () => finish(),
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('TenantReadGate', () => {
  it("holds a tenant to its cap while another tenant's query goes straight through", async () => {
    const gate = new TenantReadGate(2);
    const a = [heldQuery(), heldQuery(), heldQuery()];
    const runs = a.map((q) => inReadScope(() => gate.run(q.run), 'a'));
    await turn();
    assert.deepEqual(
      a.map((q) => q.started),
      [true, true, false],
    );

    const b = heldQuery();
    const runB = inReadScope(() => gate.run(b.run), 'b');
    await turn();
    assert.equal(b.started, true, "B's query does not wait behind A's line");

    a[0].finish();
    await turn();
    assert.equal(a[2].started, true, "A's next query takes the slot its first gave back");
    a[1].finish();
    a[2].finish();
    b.finish();
    await Promise.all([...runs, runB]);
    assert.equal(gate.busyTenants(), 0);
  });

  it('lets reads charged to no one through, and charges a scope once it names its tenant', async () => {
    const gate = new TenantReadGate(1);
    const first = heldQuery();
    const second = heldQuery();
    const unscoped = heldQuery();
    const runFirst = inReadScope(() => {
      chargeReadsTo('a');
      return gate.run(first.run);
    });
    const runSecond = inReadScope(() => {
      chargeReadsTo('a');
      return gate.run(second.run);
    });
    const runUnscoped = gate.run(unscoped.run);
    await turn();
    assert.equal(first.started, true);
    assert.equal(second.started, false, 'the second of A waits for the first');
    assert.equal(unscoped.started, true, 'the projector and start-up are not held');
    first.finish();
    unscoped.finish();
    await turn();
    assert.equal(second.started, true);
    second.finish();
    await Promise.all([runFirst, runSecond, runUnscoped]);
  });

  it('gives the slot back when a query fails, and a cursor holds one until released', async () => {
    const gate = new TenantReadGate(1);
    await assert.rejects(
      inReadScope(() => gate.run(() => Promise.reject(new Error('server gone'))), 'a'),
      /server gone/,
    );
    const release = await inReadScope(() => gate.acquire(), 'a');
    const next = heldQuery();
    const runNext = inReadScope(() => gate.run(next.run), 'a');
    await turn();
    assert.equal(next.started, false, 'an open cursor holds its turn');
    release();
    release(); // twice is once
    await turn();
    assert.equal(next.started, true);
    next.finish();
    await runNext;
    assert.equal(gate.busyTenants(), 0);
  });

  it("charges a scope's reads without losing the request it serves, and a new scope starts charged to no one", async () => {
    const gate = new TenantReadGate(1);
    const held = heldQuery();
    const first = inReadScope(
      async () => {
        chargeReadsTo('a');
        await turn();
        return scopeRequestId();
      },
      undefined,
      'request-1',
    );
    assert.equal(await first, 'request-1');
    const holding = inReadScope(() => gate.run(held.run), 'a');
    await turn();
    // Charged to no one: not held behind tenant a's query in flight.
    const uncharged = heldQuery();
    const passing = inReadScope(() => gate.run(uncharged.run), undefined, 'request-2');
    await turn();
    assert.equal(uncharged.started, true);
    assert.equal(scopeRequestId(), undefined);
    held.finish();
    uncharged.finish();
    await Promise.all([holding, passing]);
  });
});
