import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assemblePolicyInput, distinctTrails, policyInputBytes } from './policy-input';

const decoded = (bytes: Uint8Array) => JSON.parse(Buffer.from(bytes).toString('utf8'));

describe('policy input', () => {
  it('is the trails as JSON, with `trail` too when there is one, in a buffer of its own', () => {
    const one = assemblePolicyInput(['{"name":"é"}']);
    assert.deepEqual(decoded(one), { trails: [{ name: 'é' }], trail: { name: 'é' } });
    assert.equal(one.byteLength, one.buffer.byteLength, 'the whole buffer, so it can be moved');
    assert.equal(one.byteLength, policyInputBytes(['{"name":"é"}']));
    const two = assemblePolicyInput(['{"a":1}', '{"b":"✓"}']);
    assert.deepEqual(decoded(two), { trails: [{ a: 1 }, { b: '✓' }] });
    assert.equal(two.byteLength, policyInputBytes(['{"a":1}', '{"b":"✓"}']));
  });

  it('lists a trail named again once, in the order first named', () => {
    const refs = [
      { flow: 'f', trail: 'a' },
      { flow: 'f', trail: 'b' },
      { flow: 'f', trail: 'a' },
      { flow: 'g', trail: 'a' },
    ];
    assert.deepEqual(distinctTrails(refs), [refs[0], refs[1], refs[3]]);
  });
});
