import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, it } from 'node:test';
import { nextTurn, setTurnOwner } from './time-slice';

const owner = new AsyncLocalStorage<string>();
setTurnOwner(() => owner.getStore());

/** Counts the event loop's iterations (a setImmediate chain) while `work` runs. */
async function byIteration(work: (log: (who: string) => void) => Promise<unknown>): Promise<string[][]> {
  const iterations: string[][] = [[]];
  let running = true;
  const tick = () => {
    iterations.push([]);
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  await work((who) => iterations[iterations.length - 1].push(who));
  running = false;
  return iterations.filter((i) => i.length > 0);
}

/** `slices` slices of work charged to `org` (undefined: to no one), each logged after its turn. */
const sliced = (org: string | undefined, label: string, slices: number, log: (who: string) => void) => {
  const run = async () => {
    for (let i = 0; i < slices; i++) {
      await nextTurn();
      log(label);
    }
  };
  return org === undefined ? run() : owner.run(org, run);
};

describe('nextTurn: the event loop shared fairly between organizations', () => {
  it('resumes one slice of an organization per iteration, however many of its operations are under way', async () => {
    const iterations = await byIteration((log) =>
      Promise.all([
        sliced('attacker', 'a1', 5, log),
        sliced('attacker', 'a2', 5, log),
        sliced('attacker', 'a3', 5, log),
        sliced('victim', 'v', 5, log),
      ]),
    );
    for (const slices of iterations) {
      assert.ok(
        slices.filter((s) => s.startsWith('a')).length <= 1,
        `one attacker slice an iteration: ${slices}`,
      );
    }
    const victimDone = iterations.map((i) => i.includes('v')).lastIndexOf(true);
    assert.ok(
      victimDone < 6,
      `the victim's five slices are not held behind the attacker's fifteen (done at ${victimDone})`,
    );
    assert.equal(iterations.flat().filter((s) => s.startsWith('a')).length, 15, 'every attacker slice runs');
  });

  it('takes the attacker’s operations in turn, oldest first', async () => {
    const iterations = await byIteration((log) =>
      Promise.all([sliced('attacker', 'a1', 2, log), sliced('attacker', 'a2', 2, log)]),
    );
    assert.deepEqual(iterations.flat(), ['a1', 'a2', 'a1', 'a2']);
  });

  it('lets work charged to no one resume at the next iteration, beside the organizations’ turns', async () => {
    const iterations = await byIteration((log) =>
      Promise.all([
        sliced(undefined, 'p', 3, log),
        sliced('attacker', 'a1', 3, log),
        sliced('attacker', 'a2', 3, log),
      ]),
    );
    assert.deepEqual(iterations.map((i) => i.filter((s) => s === 'p').length).slice(0, 3), [1, 1, 1]);
  });
});
