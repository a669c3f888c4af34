import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { actionSecret, signature, verifySignature } from './signing';

describe('signing notifications', () => {
  const secret = actionSecret('service-key', 'acme', 1, 'secret-id-1');

  it('derives a secret per action and secret id, from the service key', () => {
    assert.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.equal(actionSecret('service-key', 'acme', 1, 'secret-id-1'), secret);
    assert.notEqual(actionSecret('service-key', 'acme', 1, 'secret-id-2'), secret, 'a rotation changes it');
    assert.notEqual(actionSecret('service-key', 'acme', 2, 'secret-id-1'), secret);
    assert.notEqual(actionSecret('other-key', 'acme', 1, 'secret-id-1'), secret);
  });

  it('signs "<timestamp>.<body>" with HMAC-SHA256, as a receiver recomputes it', () => {
    const body = '{"event_type":"ARTIFACT_STARTED"}';
    const expected = createHmac('sha256', secret).update(`1790000000.${body}`).digest('hex');
    assert.equal(signature(secret, 1790000000, body), `sha256=${expected}`);
  });

  it('verifies the exact body and a recent timestamp only', () => {
    const body = '{"a":1}';
    const header = signature(secret, 1790000000, body);
    assert.equal(verifySignature(secret, 1790000000, body, header, 1790000100), true);
    assert.equal(verifySignature(secret, 1790000000, '{"a":2}', header, 1790000100), false, 'another body');
    assert.equal(verifySignature(secret, 1790000001, body, header, 1790000100), false, 'another timestamp');
    assert.equal(verifySignature(secret, 1790000000, body, header, 1790000400), false, 'too old: a replay');
    assert.equal(verifySignature('whsec_other', 1790000000, body, header, 1790000100), false);
    assert.equal(verifySignature(secret, 1790000000, body, 'sha256=short', 1790000100), false);
  });
});
