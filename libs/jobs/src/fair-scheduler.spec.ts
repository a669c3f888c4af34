import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FairScheduler } from './fair-scheduler';

const caps: Record<string, number> = { a: 2, b: 1, c: 0 };

function startAll(s: FairScheduler<string>): string[] {
  const started: string[] = [];
  for (let next = s.next(); next; next = s.next()) started.push(next.item);
  return started;
}

describe('FairScheduler', () => {
  it('takes groups in turn, never more than the total', () => {
    const s = new FairScheduler<string>(4, () => 0);
    for (let i = 1; i <= 5; i++) s.push('a', `a${i}`);
    s.push('b', 'b1');
    s.push('c', 'c1');
    assert.deepEqual(startAll(s), ['a1', 'b1', 'c1', 'a2']);
    assert.deepEqual(s.size, { running: 4, waiting: 3 });
  });

  it('keeps each group under its cap, and starts its next item once one of its own finishes', () => {
    const s = new FairScheduler<string>(10, (g) => caps[g]);
    for (let i = 1; i <= 5; i++) s.push('a', `a${i}`);
    s.push('b', 'b1');
    s.push('b', 'b2');
    assert.deepEqual(startAll(s), ['a1', 'b1', 'a2']);
    assert.equal(s.running('a'), 2);
    s.finish('b');
    assert.deepEqual(startAll(s), ['b2']);
    s.finish('a');
    assert.deepEqual(startAll(s), ['a3']);
  });

  it('gives a freed slot to the waiting group with the fewest running', () => {
    const s = new FairScheduler<string>(3, () => 0);
    for (let i = 1; i <= 5; i++) s.push('a', `a${i}`);
    assert.deepEqual(startAll(s), ['a1', 'a2', 'a3']);
    s.push('b', 'b1');
    s.finish('a');
    assert.deepEqual(startAll(s), ['b1']);
  });

  it('starts nothing of a group whose cap is not known yet', () => {
    const known = new Map<string, number>([['a', 1]]);
    const s = new FairScheduler<string>(5, (g) => known.get(g));
    s.push('x', 'x1');
    s.push('a', 'a1');
    assert.deepEqual(startAll(s), ['a1']);
    known.set('x', 1);
    assert.deepEqual(startAll(s), ['x1']);
  });

  it('counts items started outside it, and drains what waits', () => {
    const s = new FairScheduler<string>(2, (g) => caps[g]);
    assert.equal(s.tryStart('b'), true);
    assert.equal(s.tryStart('b'), false, 'b is at its cap');
    assert.equal(s.tryStart('a'), true);
    assert.equal(s.tryStart('a'), false, 'the total is reached');
    s.push('a', 'a9');
    assert.deepEqual(s.drain(), ['a9']);
    assert.equal(s.next(), undefined);
  });
});
