import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Mode } from './support/app';
import { startNeighbourhood, type Neighbourhood } from './support/noisy-neighbour';
import type { UploadAnswer } from './support/streamed-multipart';
import { eventually } from './support/processes';
import { assertRefusal, organization } from './support/uploads';

const MB = 1024 * 1024;

/** The upload limits one by one (issue 27): the request cap (413), the quota with uploads in flight (507), concurrent uploads (429), a client gone. */
for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`upload limits (${mode} mode)`, () => {
    // A request may carry 6 MB of files; an organization may run 2 uploads at once and keep 8 MB of
    // attachments. Each test has an organization of its own, so what one keeps counts for no other.
    let n: Neighbourhood;
    before(async () => {
      n = await startNeighbourhood(mode, {
        DES_ORG_CONCURRENT_UPLOADS: '2',
        DES_UPLOAD_REQUEST_BYTES: String(6 * MB),
        DES_ORG_ATTACHMENT_BYTES: String(8 * MB),
      });
    });
    after(async () => n.close());

    it('refuses a request whose files pass the request cap 413, keeping none of them', async () => {
      const a = await organization(n, 'over-cap');
      const over = await a.upload('over-cap', { files: 2, fileBytes: 4 * MB });
      assertRefusal(
        over,
        413,
        /^Upload too large: one request may carry at most 6291456 bytes of files$/,
        'files',
      );
      assert.equal((await a.recorded())['over-cap'], undefined);
      await a.nothingLeft();
      const within = await a.upload('within-cap', { files: 2, fileBytes: 3 * MB });
      assert.equal(within.status, 201, JSON.stringify(within.body));
      await a.nothingLeft();
    });

    it('holds an upload in flight against the quota: a concurrent one that would pass it is refused 507', async () => {
      const a = await organization(n, 'quota');
      let second: Promise<UploadAnswer> | undefined;
      // The first sends 4 MB, then the second (5.5 MB: 9.5 with the first's) runs whole while the first waits.
      const first = a.upload('quota-first', {
        fileBytes: 5.5 * MB,
        pauseAfterBytes: {
          bytes: 4 * MB,
          until: async () => {
            await eventually(
              async () => a.inFlight().bytes,
              (bytes) => bytes >= 4 * MB,
              30_000,
            ); // the first upload held
            second = a.upload('quota-second', { fileBytes: 5.5 * MB });
            await second;
          },
        },
      });
      assert.equal((await first).status, 201);
      assertRefusal(await second!, 507, /^Storage quota exceeded: /, 'attachmentBytes');
      const recorded = await a.recorded();
      assert.equal(recorded['quota-second'], undefined);
      assert.equal(recorded['quota-first']?.attachments?.length, 1);
      await a.nothingLeft();
    });

    it('caps concurrent uploads: 429 with Retry-After while two are in flight, admitted again once they end', async () => {
      const a = await organization(n, 'busy');
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const slow = ['slow-1', 'slow-2'].map((name) =>
        a.upload(name, { fileBytes: 2 * MB, pauseAfterBytes: { bytes: MB, until: () => held } }),
      );
      await eventually(
        async () => a.inFlight().uploads,
        (uploads) => uploads === 2,
        30_000,
      ); // two uploads in flight
      const third = await a.upload('third', { fileBytes: MB });
      assertRefusal(third, 429, /^Too many requests: /, 'concurrentUploads');
      assert.match(String(third.headers['retry-after']), /^[1-9]\d*$/);
      release();
      for (const s of await Promise.all(slow)) assert.equal(s.status, 201);
      await a.nothingLeft();
      assert.equal((await a.upload('fourth', { fileBytes: MB })).status, 201);
    });

    it('an upload whose client goes away leaves no temporary file and records nothing', async () => {
      const a = await organization(n, 'gone');
      const gone = await a.upload('aborted', { files: 2, fileBytes: 2 * MB, abortAfterBytes: 3 * MB });
      assert.equal(gone.status, 0);
      await a.nothingLeft();
      assert.equal((await a.recorded()).aborted, undefined);
    });
  });
}
