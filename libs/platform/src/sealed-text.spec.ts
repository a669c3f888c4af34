import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { seal, unseal } from './sealed-text';

describe('sealed text', () => {
  const key = randomBytes(32);

  it('opens to the text it sealed, and never shows it', () => {
    const text = '{"key":"des_secret-value","é":"ü"}';
    const sealed = seal(key, 'idempotency-acme/abc', text);
    assert.match(sealed, /^v1\.[A-Za-z0-9_-]+$/);
    assert.ok(!sealed.includes('secret'));
    assert.notEqual(seal(key, 'idempotency-acme/abc', text), sealed, 'a fresh nonce each time');
    assert.equal(unseal(key, 'idempotency-acme/abc', sealed), text);
  });

  it('refuses another key, another context or a changed byte', () => {
    const sealed = seal(key, 'ctx', 'answer');
    assert.throws(() => unseal(randomBytes(32), 'ctx', sealed));
    assert.throws(() => unseal(key, 'other', sealed));
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    raw[raw.length - 1] ^= 1;
    assert.throws(() => unseal(key, 'ctx', `v1.${raw.toString('base64url')}`));
    assert.throws(() => unseal(key, 'ctx', 'answer'), /not a sealed text/);
  });
});
