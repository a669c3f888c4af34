import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { eventSize, SqliteEventStore } from '#des/event-store';
import { FlowTimeMachine, flowStream } from '#des/flows';
import { TrailTimeMachine } from './trail-time-machine';
import { trailStream } from './trail.events';

/** A log whose clock moves one second per append (second N = event N). */
async function history() {
  let now = 0;
  const store = new SqliteEventStore({ path: ':memory:', clock: () => (now += 1_000_000) });
  const append = (stream: string, type: string, data: Record<string, unknown>) =>
    store.append(stream, [{ id: randomUUID(), type, data, metadata: {} }], 'any');
  const template = (names: string[]) => ({
    trail: { attestations: names.map((name) => ({ name, type: 'generic' })) },
  });
  await append(flowStream('o', 'f'), 'flow_created', {
    name: 'f',
    description: '',
    template: null,
    tags: {},
  }); // 1
  await append(trailStream('o', 'f', 't'), 'trail_reported', {
    flow: 'f',
    name: 't',
    description: '',
    git_commit_info: null,
    repo_info: null,
    origin_url: null,
    user_data: {},
  }); // 2
  for (let i = 0; i < 6; i++) {
    await append(trailStream('o', 'f', 't'), 'attestation_reported', {
      id: `a${i}`,
      name: `check-${i % 3}`,
      type: 'generic',
      compliant: i % 2 === 0,
      artifact_fingerprint: null,
      description: '',
      origin_url: null,
      user_data: {},
      evidence: {},
    }); // 3..8
    if (i === 2)
      await append(flowStream('o', 'f'), 'flow_updated', {
        name: 'f',
        description: '',
        template: template(['check-0']),
      }); // 6
  }
  return store;
}

describe('TrailTimeMachine', () => {
  it('answers every instant, in any order, exactly as a fold from scratch does', async () => {
    const store = await history();
    const kept = new TrailTimeMachine(store, new FlowTimeMachine(store));
    const instants = [9, 3, 5, 5, 1, 2, 7, 4, 9, 6, 2, 8, 0];
    for (const at of instants) {
      const fresh = await new TrailTimeMachine(store, new FlowTimeMachine(store)).at('o', 'f', 't', at);
      assert.deepEqual(await kept.at('o', 'f', 't', at), fresh, `at ${at}`);
    }
    const at4 = await kept.at('o', 'f', 't', 4);
    assert.deepEqual(Object.keys(at4.view!.attestations), ['check-0', 'check-1']);
    assert.equal(at4.template, null, 'the template came later');
    assert.equal((await kept.at('o', 'f', 't', 6)).template?.trail?.attestations?.[0].name, 'check-0');
    const none = { view: null, template: null, bytes: 0 };
    assert.deepEqual(await kept.at('o', 'f', 't', 0), { ...none, flowExists: false });
    assert.deepEqual(await kept.at('o', 'f', 't', 1), { ...none, flowExists: true });
    // The trail's events as stored, counted while folding (an evaluation's input bound).
    const stored = await store.readStream(trailStream('o', 'f', 't'), { untilRecordedAt: 5_000_000 });
    assert.equal(stored.length, 4);
    assert.equal((await kept.at('o', 'f', 't', 5)).bytes, stored.map(eventSize).reduce((a, b) => a + b));
    await store.close();
  });

  it('folds onto a kept answer the events recorded since', async () => {
    const store = await history();
    const kept = new TrailTimeMachine(store, new FlowTimeMachine(store));
    const before = await kept.at('o', 'f', 't', 100);
    await store.append(
      trailStream('o', 'f', 't'),
      [{ id: randomUUID(), type: 'trail_updated', data: { description: 'later' }, metadata: {} }],
      'any',
    );
    const after = await kept.at('o', 'f', 't', 100);
    assert.equal(after.view!.event_count, before.view!.event_count + 1);
    assert.equal(after.view!.description, 'later');
    assert.equal(before.view!.description, '', 'an earlier answer is not changed');
    await store.close();
  });

  it('pinned to a log position, never shows an event recorded later in the same clock tick', async () => {
    const tick = 1_790_000_000_000_000;
    const store = new SqliteEventStore({ path: ':memory:', clock: () => tick });
    const trail = trailStream('o', 'f', 't');
    const report = (type: string, data: Record<string, unknown>) =>
      store.append(trail, [{ id: randomUUID(), type, data, metadata: {} }], 'any');
    await report('trail_reported', { flow: 'f', name: 't', description: 'first', user_data: {} });
    const pinned = await store.head();
    await report('trail_updated', { description: 'same tick, later position' });
    assert.equal((await store.head()).recordedAt, pinned.recordedAt, 'both events share one recorded_at');
    const kept = new TrailTimeMachine(store, new FlowTimeMachine(store));
    const atSeconds = tick / 1_000_000;
    assert.equal((await kept.at('o', 'f', 't', atSeconds)).view!.description, 'same tick, later position');
    // The kept fold above is past the pin: it must not be reused for the pinned answer.
    const atPin = await kept.at('o', 'f', 't', atSeconds, pinned.position);
    assert.equal(atPin.view!.description, 'first');
    assert.equal(atPin.view!.event_count, 1);
    await store.close();
  });

  it('answers several trails at once as one at a time, reading each flow once', async () => {
    const store = await history();
    const flows = new FlowTimeMachine(store);
    let flowReads = 0;
    const at = flows.at.bind(flows);
    flows.at = (...args) => (flowReads++, at(...args));
    const machine = new TrailTimeMachine(store, flows);
    const refs = [
      { flow: 'f', trail: 't' },
      { flow: 'f', trail: 'absent' },
      { flow: 'g', trail: 't' },
      { flow: 'f', trail: 't' },
    ];
    for (const instant of [4, 7, 100]) {
      flowReads = 0;
      const all = await machine.atAll('o', refs, instant);
      assert.equal(flowReads, 2, 'flows f and g, once each');
      const one = new TrailTimeMachine(store, new FlowTimeMachine(store));
      for (const [i, ref] of refs.entries())
        assert.deepEqual(
          all[i],
          await one.at('o', ref.flow, ref.trail, instant),
          `${ref.flow}/${ref.trail} at ${instant}`,
        );
    }
    await store.close();
  });
});
