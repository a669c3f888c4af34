import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSnapshotRef } from '#des/environments';
import {
  fromKosliRef,
  KOSLI_SNAPSHOT_REF_PATTERN,
  SNAPPISH_PATTERN,
  splitSnappish,
} from './kosli-snapshot-ref';

const NOW = 1_800_000_000;

describe('Kosli snapshot references', () => {
  it('given each form the CLI sends, when read, then it is this service’s reference', () => {
    assert.equal(fromKosliRef('-1', NOW), '-1');
    assert.equal(fromKosliRef('-2', NOW), '~1');
    assert.equal(fromKosliRef('-4', NOW), '~3');
    assert.equal(fromKosliRef('#7', NOW), '7');
    assert.equal(fromKosliRef('7', NOW), '7');
    assert.equal(fromKosliRef('~2', NOW), '~2');
    assert.equal(fromKosliRef('@{2023-10-02T12:00:00}', NOW), `@${Date.UTC(2023, 9, 2, 12) / 1000}`);
    assert.equal(fromKosliRef('@{3.hours.ago}', NOW), `@${NOW - 3 * 3600}`);
    assert.equal(fromKosliRef('@{1.day.ago}', NOW), `@${NOW - 86_400}`);
  });

  it('given a time it cannot read, then 400 naming the forms', () => {
    assert.throws(() => fromKosliRef('@{yesterday}', NOW), /Input payload validation failed/);
    assert.throws(() => fromKosliRef('@{2023-13-02T12:00:00}', NOW), /Input payload validation failed/);
    assert.throws(() => fromKosliRef('-0', NOW), /Input payload validation failed/);
  });

  it('given any reference its pattern admits, then one parseSnapshotRef takes', () => {
    const refs = ['-1', '-9999999999', '#1', '~0', '@{999999.months.ago}', '@{1980-01-01T00:00+01:00}'];
    for (const raw of [
      ...refs,
      '@{2999-12-31T23:59:59.999999999Z}',
      '@1700000000.5',
      '@2024-02-29T00:00:00Z',
    ]) {
      assert.match(raw, new RegExp(KOSLI_SNAPSHOT_REF_PATTERN));
      assert.doesNotThrow(() => parseSnapshotRef(fromKosliRef(raw, NOW)), raw);
    }
  });

  it('given a snappish, then its environment and reference', () => {
    assert.deepEqual(splitSnappish('prod'), { env: 'prod', ref: '-1' });
    assert.deepEqual(splitSnappish('prod#3'), { env: 'prod', ref: '#3' });
    assert.deepEqual(splitSnappish('prod~1'), { env: 'prod', ref: '~1' });
    assert.deepEqual(splitSnappish('prod@{1.day.ago}'), { env: 'prod', ref: '@{1.day.ago}' });
    for (const snappish of ['prod', 'prod#3', 'prod~1', 'prod@{1.day.ago}', 'prod@1700000000'])
      assert.match(snappish, new RegExp(SNAPPISH_PATTERN));
    for (const snappish of ['#3', 'prod@', 'prod#0', 'prod~x'])
      assert.doesNotMatch(snappish, new RegExp(SNAPPISH_PATTERN));
  });
});
