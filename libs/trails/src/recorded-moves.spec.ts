import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecordedMoves } from './trail.decider';

describe('RecordedMoves: a trail’s recorded moves, immutable to each state', () => {
  it('each state sees the moves up to its own, whatever was added after it or from another state', () => {
    const a = RecordedMoves.none.with('m1');
    const b = a.with('m2');
    const c = b.with('m3');
    // A branch from `a`: it must not see m2 or m3, and they must not see its m4.
    const branch = a.with('m4');
    assert.deepEqual(
      ['m1', 'm2', 'm3', 'm4'].map((k) => [a.has(k), b.has(k), c.has(k), branch.has(k)]),
      [
        [true, true, true, true],
        [false, true, true, false],
        [false, false, true, false],
        [false, false, false, true],
      ],
    );
    assert.equal(RecordedMoves.none.has('m1'), false, 'the start of every stream stays empty');
    assert.equal(RecordedMoves.none.with('x').has('m1'), false);
    assert.equal(c.with('m2'), c, 'a move already recorded leaves the state as it is');
    // Extending the branch's parent again branches once more: b still sees only its own.
    const again = b.with('m5');
    assert.equal(c.has('m5'), false);
    assert.equal(again.has('m3'), false);
    assert.equal(again.has('m5'), true);
  });

  it('folds 100,000 moves one after another (a copy per move would be 5·10^9 key copies)', () => {
    let moves = RecordedMoves.none;
    for (let i = 0; i < 100_000; i++) moves = moves.with(`started:prod#${i}#${i}`);
    assert.equal(moves.has('started:prod#99999#99999'), true);
    assert.equal(moves.has('started:prod#100000#100000'), false);
  });
});
