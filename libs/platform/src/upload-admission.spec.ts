import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from './api-error';
import type { TenantLimits } from '#des/kernel';
import { tenantLimitDefaults } from './tenant-limits';
import { UPLOAD_BURST_MS, UploadAdmission, UploadLedger } from './upload-admission';

const admission = (limits: Partial<TenantLimits>, storedAttachmentBytes = 0) =>
  new UploadAdmission(
    { limitsFor: async () => ({ ...tenantLimitDefaults({}), ...limits }) },
    { usageOf: async () => ({ eventLogBytes: 0, attachmentBytes: storedAttachmentBytes }) },
  );

const refusal = (status: number, limit: string) => (error: unknown) => {
  assert.ok(error instanceof ApiError, String(error));
  assert.equal(error.getStatus(), status);
  assert.ok(error.errors && limit in error.errors, JSON.stringify(error.errors));
  return true;
};

describe('UploadAdmission', () => {
  it('admits as many counted uploads of an organization as its limit, then 429 with Retry-After until one ends', async () => {
    const uploads = admission({ concurrentUploads: 2 });
    const first = await uploads.admit('a', true);
    await uploads.admit('a', true);
    await assert.rejects(uploads.admit('a', true), (error) => {
      refusal(429, 'concurrentUploads')(error);
      assert.match((error as ApiError).headers['Retry-After'], /^[1-9]\d*$/);
      return true;
    });
    await uploads.admit('b', true);
    await uploads.admit('a', false);
    first.release();
    first.release();
    await uploads.admit('a', true);
    assert.equal(uploads.inFlight('a').uploads, 2);
  });

  it('refuses bytes past the request cap with 413; the refused request then holds nothing and takes nothing', async () => {
    const uploads = admission({ uploadRequestBytes: 100 });
    const exact = await uploads.admit('a', true);
    exact.take(60);
    exact.take(40);
    assert.equal(exact.bytes, 100);
    const over = await uploads.admit('a', true);
    over.take(60);
    assert.throws(() => over.take(41), refusal(413, 'files'));
    assert.equal(over.bytes, 0);
    assert.throws(() => over.take(1), refusal(413, 'files'));
    assert.equal(uploads.inFlight('a').bytes, 100);
  });

  it('holds in-flight bytes against the quota: concurrent uploads share the room left, 507 past it', async () => {
    const uploads = admission({ attachmentBytes: 1000, uploadRequestBytes: 0 }, 400);
    const one = await uploads.admit('a', true);
    const two = await uploads.admit('a', true);
    one.take(300);
    assert.throws(() => two.take(301), refusal(507, 'attachmentBytes'));
    const three = await uploads.admit('a', true);
    three.take(300);
    assert.equal(uploads.inFlight('a').bytes, 600);
    assert.throws(() => one.take(1), refusal(507, 'attachmentBytes'));
    assert.equal(uploads.inFlight('a').bytes, 300, 'a refused upload holds nothing');
    assert.throws(() => one.take(0), refusal(507, 'attachmentBytes'));
    two.release();
    three.release();
    one.release();
    assert.deepEqual(uploads.inFlight('a'), { uploads: 0, bytes: 0 });
    assert.throws(() => one.take(1), /after its request ended/);
  });

  it('refuses from the first byte when the stored attachments fill the quota; 0 means unlimited', async () => {
    const full = await admission({ attachmentBytes: 1000 }, 1000).admit('a', true);
    full.take(0);
    assert.throws(() => full.take(1), refusal(507, 'attachmentBytes'));
    const unlimited = await admission(
      { attachmentBytes: 0, uploadRequestBytes: 0, concurrentUploads: 0 },
      10 ** 12,
    );
    const tickets = await Promise.all(Array.from({ length: 50 }, () => unlimited.admit('a', true)));
    tickets[0].take(10 ** 12);
  });
});

describe('UploadLedger.pace', () => {
  it("lets an organization's uploads through at its rate after a burst, each organization on its own", () => {
    const ledger = new UploadLedger();
    const t0 = 1_000_000;
    // 100 bytes/s: a quarter second's worth (25 bytes) passes at once, then each 100 bytes waits a second more.
    assert.equal(UPLOAD_BURST_MS, 250);
    assert.equal(ledger.pace('a', 25, 100, t0), 0);
    assert.equal(ledger.pace('a', 100, 100, t0), 1000);
    assert.equal(ledger.pace('a', 50, 100, t0), 1500);
    // Another organization is not slowed by the first one's bytes.
    assert.equal(ledger.pace('b', 25, 100, t0), 0);
    // Time that passed pays for the bytes sent meanwhile.
    assert.equal(ledger.pace('a', 25, 100, t0 + 2500), 0);
    // 0: unpaced.
    assert.equal(ledger.pace('c', 10 ** 12, 0, t0), 0);
  });
});
