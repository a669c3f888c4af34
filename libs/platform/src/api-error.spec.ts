import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { boundedText, ERROR_BODY_LIMITS, errorBody } from './api-error';

describe('the error body', () => {
  it('is sent as it was when every string is within its bounds', () => {
    assert.deepEqual(errorBody('Input payload validation failed', { name: 'is required' }), {
      message: 'Input payload validation failed',
      errors: { name: 'is required' },
    });
    assert.deepEqual(errorBody('Not found'), { message: 'Not found' });
  });

  it('cuts a long message and long field errors visibly, saying how long they were', () => {
    const echoed = `not YAML: ${'? '.repeat(300_000)}`;
    const body = errorBody(echoed, { [`policy_file.${'k'.repeat(5000)}`]: echoed });
    assert.equal(body.message.length, ERROR_BODY_LIMITS.textChars + `… (${echoed.length} characters)`.length);
    assert.ok(body.message.endsWith(`… (${echoed.length} characters)`));
    const [[field, value]] = Object.entries(body.errors!);
    assert.ok(field.length < ERROR_BODY_LIMITS.fieldChars + 30, `a field of ${field.length} characters`);
    assert.ok(field.startsWith('policy_file.kkk'));
    assert.equal(value, boundedText(echoed));
    assert.ok(JSON.stringify(body).length < 4 * 1024);
  });

  it('lists at most 50 field errors and counts the rest', () => {
    const errors = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, 'is not allowed']));
    const body = errorBody('Input payload validation failed', errors);
    assert.equal(Object.keys(body.errors!).length, ERROR_BODY_LIMITS.fields + 1);
    assert.equal(body.errors!['…'], `and ${10_000 - ERROR_BODY_LIMITS.fields} more`);
    assert.equal(body.errors!.k0, 'is not allowed');
  });
});
