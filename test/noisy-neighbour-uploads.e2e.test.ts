// des-test: alone (it measures another organization's latency or the event loop's delay: nothing may run beside it)
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AttachmentStore } from '#des/platform';
import type { Mode } from './support/app';
import {
  assertUnharmed,
  startNeighbourhood,
  watchNeighbour,
  type Neighbourhood,
} from './support/noisy-neighbour';
import { AttackClient } from './support/attack-client';
import { digestsOf } from './support/streamed-multipart';
import { assertNothingLeft, assertRefusal, recordedAttestations, setUp, uploader } from './support/uploads';

const MB = 1024 * 1024;

/**
 * Attack (a): A sends 48 attestations at once, each with 10 files of 9.5 MB
 * (95 MB a request, 4.5 GB in all). A may upload 4 requests at a time (the
 * default), 100 MB a request, and keep 300 MB of attachments. Held in memory
 * as they were before, the 4 admitted requests alone would take 4 × 95 MB =
 * 380 MB; streamed to disk, each holds a few parser and file-stream buffers
 * (well under 1 MB) and the test's client one 64 KiB chunk per request, so
 * RSS growing less than STREAMED_RSS_GROWTH proves the streaming. The 300 MB
 * quota takes 3 requests whole (285 MB): another admitted is refused 507 as
 * its bytes pass it, the 44 beyond the 4 at a time 429.
 */
const WAVE = { requests: 48, files: 10, fileBytes: 9.5 * MB };
const WAVE_LIMITS = { concurrentUploads: 4, uploadRequestBytes: 100 * MB, attachmentBytes: 300 * MB };

/** Attack (b): two clients each send 20,000-pod K8S reports (as the Kosli CLI shapes them, owners included), in a loop. */
/** Far below what the admitted uploads would hold in memory (4 × 95 MB). */
const STREAMED_RSS_GROWTH = 200 * MB;

const K8S = { pods: 20_000, clients: 2, rounds: 20 };

function k8sReport(): string {
  const pods = Array.from({ length: K8S.pods }, (_, i) => ({
    creationTimestamp: 1_790_000_000 + i,
    digests: { [`ghcr.io/acme/svc-${i % 200}:1.${i}`]: `sha256:${(i % 200).toString(16).padStart(64, '0')}` },
    namespace: `team-${i % 30}`,
    podName: `svc-${i % 200}-7d9f8c6b5-${i.toString(36).padStart(5, 'x')}`,
    owners: [
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        name: `svc-${i % 200}-7d9f8c6b5`,
        uid: 'a1b2c3d4-0000-1111-2222-333344445555',
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
  }));
  return JSON.stringify({ artifacts: pods });
}

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`noisy neighbour: uploads and K8S reports (${mode} mode)`, () => {
    let n: Neighbourhood;
    const client = new AttackClient();
    before(async () => {
      n = await startNeighbourhood(mode, {
        DES_ORG_CONCURRENT_UPLOADS: String(WAVE_LIMITS.concurrentUploads),
        DES_UPLOAD_REQUEST_BYTES: String(WAVE_LIMITS.uploadRequestBytes),
        DES_ORG_ATTACHMENT_BYTES: String(WAVE_LIMITS.attachmentBytes),
      });
      await setUp(n);
      // Once before B watches: the first upload loads and compiles the parts it takes (a one-time cost).
      assert.equal(
        (await uploader(n, n.t.org, n.t.key)('warm-up', { files: 2, fileBytes: 100_000 })).status,
        201,
      );
    });
    after(async () => {
      await client.close();
      await n.close();
    });

    it('48 concurrent attestations of 10 × 9.5 MB: streamed to disk, 201 up to the caps, 429 and 507 beyond, B unharmed', async () => {
      const watch = watchNeighbour(n, `/api/v2/flows/${n.orgB}/web`);
      const answers = await Promise.all(
        Array.from({ length: WAVE.requests }, (_, i) =>
          client.upload({
            baseUrl: n.baseUrl,
            path: `/api/v2/attestations/${n.t.org}/shop/trail/t1/generic`,
            key: n.t.key,
            dataJson: { attestation_name: `wave-${i}` },
            files: WAVE.files,
            fileBytes: WAVE.fileBytes,
            seed: `${n.t.org}/wave-${i}`,
          }),
        ),
      );
      const report = await watch.stop();
      const count = (status: number) => answers.filter((a) => a.status === status).length;
      console.log(
        `# uploads (${mode}): ${count(201)} × 201, ${count(429)} × 429, ${count(507)} × 507, ${count(413)} × 413`,
      );
      assertUnharmed(`${mode}: 48 concurrent uploads of 95 MB`, report);
      assert.ok(
        report.rss.peak - report.rss.baseline < STREAMED_RSS_GROWTH,
        `RSS grew ${Math.round((report.rss.peak - report.rss.baseline) / MB)} MB: uploads are held in memory`,
      );
      assert.deepEqual(
        answers.filter((a) => ![201, 429, 507].includes(a.status)).map((a) => a.status),
        [],
      );
      const kept = answers.filter((a) => a.status === 201);
      assert.ok(kept.length >= 1, 'A uploads within its limits');
      assert.ok(
        kept.length * WAVE.files * WAVE.fileBytes <= WAVE_LIMITS.attachmentBytes,
        `${kept.length} requests kept: the quota was passed`,
      );
      assert.ok(
        count(429) >= WAVE.requests - WAVE_LIMITS.concurrentUploads - 4,
        'the concurrent uploads are capped',
      );
      assert.ok(count(507) >= 1, 'the quota refuses what would pass it');
      for (const a of answers.filter((a) => a.status === 429)) {
        assertRefusal(a, 429, /^Too many requests: /, 'concurrentUploads');
        assert.match(String(a.headers['retry-after']), /^[1-9]\d*$/);
      }
      for (const a of answers.filter((a) => a.status === 507))
        assertRefusal(a, 507, /^Storage quota exceeded: /, 'attachmentBytes');

      // Every acknowledged attachment is recorded and kept whole, under its digest.
      const store = n.t.app.get(AttachmentStore);
      const recorded = await recordedAttestations(n);
      for (const a of kept) {
        const attachments = a.body.attachments as { filename: string; sha256: string; size: number }[];
        const sent = await digestsOf({ ...WAVE, seed: `${n.t.org}/${String(a.body.name)}` });
        assert.deepEqual(
          attachments.map((x) => [x.sha256, x.size]),
          sent.map((d) => [d, WAVE.fileBytes]),
        );
        assert.deepEqual(recorded[a.body.name as string]?.attachments, attachments);
        // Read back through the store: files on disk embedded, in GridFS in server mode. One of
        // each request whole (reading 285 MB back through FerretDB takes minutes), the rest by size.
        const [whole, ...rest] = attachments;
        const bytes = await store.get(whole.sha256);
        assert.ok(bytes, `${whole.sha256} is kept`);
        assert.equal(createHash('sha256').update(bytes).digest('hex'), whole.sha256);
        for (const x of rest) assert.equal(await store.sizeOf(x.sha256), WAVE.fileBytes, `${x.sha256} is kept`);
      }
      await assertNothingLeft(n);
    });

    it('a file over 10 MB: 413 with the spec message, nothing kept', async () => {
      const over = await uploader(n, n.t.org, n.t.key)('too-big-file', { fileBytes: 10 * MB + 1 });
      assert.equal(over.status, 413);
      assert.deepEqual(over.body, { message: 'File size exceeds 10MB limit' });
      assert.equal((await recordedAttestations(n))['too-big-file'], undefined);
      await assertNothingLeft(n);
    });

    it('two clients looping 20,000-pod K8S reports: each refused 413 before it is parsed, B unharmed', async () => {
      const report = Buffer.from(k8sReport());
      const path = `/api/v2/environments/${n.t.org}/prod/report/K8S`;
      const send = () => client.json(n.baseUrl, path, n.t.key, report);
      // Once before B watches: the first report compiles the scan (a one-time cost of the process).
      assert.equal((await send()).status, 413);
      const watch = watchNeighbour(n, `/api/v2/flows/${n.orgB}/web`);
      const answers = (
        await Promise.all(
          Array.from({ length: K8S.clients }, async () => {
            const mine: { status: number; body: unknown }[] = [];
            for (let round = 0; round < K8S.rounds; round++) mine.push(await send());
            return mine;
          }),
        )
      ).flat();
      assertUnharmed(`${mode}: two clients looping ${K8S.pods}-pod K8S reports`, await watch.stop());
      assert.equal(answers.length, K8S.clients * K8S.rounds);
      for (const a of answers) {
        assert.equal(a.status, 413);
        assert.deepEqual(a.body, {
          message: `Request too large: the events it would record exceed the event store's limit of ${n.t.config.maxAppendSize} bytes per write`,
        });
      }
      const snapshots = await n.asA(`/api/v2/environments/${n.t.org}/prod/snapshots/-1`);
      assert.equal(snapshots.status, 404, 'no snapshot recorded');
    });
  });
}
