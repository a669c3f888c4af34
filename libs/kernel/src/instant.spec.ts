import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isoMicros, parseInstant, unixMicros } from './instant';

describe('instants', () => {
  it('reads UNIX seconds and ISO-8601 with an offset as the same instant', () => {
    const at = 1_795_459_440;
    for (const raw of [
      '1795459440',
      '1795459440.0',
      '2026-11-23T18:44:00Z',
      '2026-11-23T18:44Z',
      '2026-11-23T19:44:00+01:00',
      '2026-11-23T13:14:00-0530',
      '2026-11-23t18:44:00.000z',
    ]) {
      assert.equal(parseInstant(raw), at, raw);
    }
  });

  it('keeps microseconds, and drops what is finer', () => {
    assert.equal(parseInstant('2026-11-23T18:44:00.123456Z'), 1_795_459_440.123456);
    assert.equal(parseInstant('2026-11-23T18:44:00.1234569Z'), 1_795_459_440.123456);
    assert.equal(parseInstant('2026-11-23T18:44:00.5Z'), 1_795_459_440.5);
  });

  it('refuses what is neither form, a local time without an offset, and days a month lacks', () => {
    for (const raw of [
      '',
      'now',
      '-5',
      '1e9',
      '2026-11-23',
      '2026-11-23T18:44:00',
      '2026-02-30T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-11-23T24:00:00Z',
      '2026-11-23T18:44:00+25:00',
      '1970-01-01T00:30:00+01:00',
      '2026-11-31T00:00:00Z',
      '2100-02-29T00:00:00Z',
    ]) {
      assert.equal(parseInstant(raw), undefined, raw);
    }
  });

  it('writes an instant exactly, as ISO and as UNIX seconds, and reads it back', () => {
    const at = 1_795_459_433.000_016;
    assert.equal(isoMicros(at), '2026-11-23T18:43:53.000016Z');
    assert.equal(unixMicros(at), '1795459433.000016');
    assert.equal(Math.round(parseInstant(isoMicros(at))! * 1e6), Math.round(at * 1e6));
    assert.equal(Math.round(parseInstant(unixMicros(at))! * 1e6), Math.round(at * 1e6));
  });

  it('takes 29 February in leap years only, and each month’s last day', () => {
    for (const raw of ['2024-02-29T00:00Z', '2000-02-29T00:00Z', '1972-02-29T00:00Z', '2026-01-31T00:00Z'])
      assert.equal(typeof parseInstant(raw), 'number', raw);
    for (const raw of ['2026-02-29T00:00Z', '1900-02-29T00:00Z', '2026-04-31T00:00Z'])
      assert.equal(parseInstant(raw), undefined, raw);
  });
});
