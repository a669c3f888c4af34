// des-test: alone (it measures another organization's latency or the event loop's delay: nothing may run beside it)
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { unzipSync } from 'fflate';
import { HeavyOperations } from '#des/platform';
import type { Mode } from './support/app';
import { startNeighbourhood, type Neighbourhood } from './support/noisy-neighbour';
import { eventually } from './support/processes';
import { digestsOf } from './support/streamed-multipart';
import { setUp, uploader } from './support/uploads';

const MB = 1024 * 1024;

/**
 * Slow and stalled readers of large answers (issue 49): one attachment of
 * 9.5 MB downloaded by 16 clients that read nothing, and two bundles of a
 * trail holding six such files (57 MB: more than loopback's socket buffers
 * take, up to 36 MB here), read by no one either. Held whole, as they were
 * before, those answers took 16 × 9.5 MB + 2 × (57 MB of files + a 57 MB
 * zip), near 380 MB; streamed, each holds a few chunks in the process.
 */
const FILE = { files: 2, fileBytes: 9.5 * MB };
/**
 * In server mode the files are in GridFS, which FerretDB on SQLite serves at a few MB/s: one
 * attestation's two files there (the heavy-operation counts are the process's, the same in both modes).
 */
const ATTESTATIONS: Record<Mode, string[]> = {
  embedded: ['large-1', 'large-2', 'large-3'],
  server: ['large-1'],
};
const STALLED_DOWNLOADS = 16;
/**
 * Far below what the stalled answers held whole, well above what streaming holds. Measured: held
 * whole, 185 MB embedded and 39 MB in server mode (its bundles smaller, its files slower to come, so
 * fewer held at once); streamed, under 1 MB and 6 MB.
 */
const STREAMED_RSS_GROWTH: Record<Mode, number> = { embedded: 64 * MB, server: 24 * MB };
/** Heavy answers in flight in the process, all organizations together (DES_HEAVY_OPERATIONS). */
const PROCESS_HEAVY = 2;

/** A GET whose answer's headers are in and whose body nobody reads (yet). */
interface Stalled {
  status: number;
  headers: IncomingMessage['headers'];
  /** Reads the rest of the body. */
  body(): Promise<Buffer>;
  /** The client goes away. */
  leave(): void;
}

function stalledGet(baseUrl: string, path: string, key: string): Promise<Stalled> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${path}`, { headers: { Authorization: `Bearer ${key}` } }, (res) => {
      // Not read: the socket stops being read once its few buffers are full (TCP back-pressure).
      res.pause();
      resolve({
        status: res.statusCode!,
        headers: res.headers,
        body: async () => {
          const chunks: Buffer[] = [];
          for await (const chunk of res) chunks.push(chunk as Buffer);
          return Buffer.concat(chunks);
        },
        leave: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`noisy neighbour: stalled downloads and heavy answers (${mode} mode)`, () => {
    let n: Neighbourhood;
    let digests: string[];
    const stalled: Stalled[] = [];
    const trailPath = (org: string) => `/api/v2/trails/${org}/shop/t1`;

    before(async () => {
      n = await startNeighbourhood(mode, { DES_HEAVY_OPERATIONS: String(PROCESS_HEAVY) });
      await setUp(n);
      digests = [];
      for (const name of ATTESTATIONS[mode]) {
        assert.equal((await uploader(n, n.t.org, n.t.key)(name, FILE)).status, 201);
        digests.push(...(await digestsOf({ ...FILE, seed: `${n.t.org}/${name}` })));
      }
      // B: a trail, to ask for a bundle of its own.
      const put = (path: string, body: unknown) =>
        n.asB(path, {
          method: 'PUT',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
      assert.equal((await put(`/api/v2/flows/${n.orgB}`, { name: 'shop' })).status, 201);
      assert.equal((await put(`/api/v2/trails/${n.orgB}/shop`, { name: 't1' })).status, 201);
    });
    after(async () => {
      for (const s of stalled) s.leave();
      await n.close();
    });

    it('16 stalled downloads of a 9.5 MB attachment and 2 stalled bundles hold a few buffers, not the files', async () => {
      // Once before measuring: the first bundle launches Chromium and loads what it takes (a one-time cost).
      const warm = await n.asA(`${trailPath(n.t.org)}/bundle`);
      assert.equal(warm.status, 200);
      await warm.arrayBuffer();
      (globalThis as { gc?: () => void }).gc?.();
      const baseline = process.memoryUsage().rss;
      let peak = baseline;
      const sample = () => (peak = Math.max(peak, process.memoryUsage().rss));
      const attachment = `${trailPath(n.t.org)}/attachments/${digests[0]}`;
      const downloads = await Promise.all(
        Array.from({ length: STALLED_DOWNLOADS }, () => stalledGet(n.baseUrl, attachment, n.t.key)),
      );
      sample();
      const bundles = await Promise.all(
        [0, 1].map(() => stalledGet(n.baseUrl, `${trailPath(n.t.org)}/bundle`, n.t.key)),
      );
      stalled.push(...downloads, ...bundles);
      sample();
      for (const d of downloads) {
        assert.equal(d.status, 200);
        assert.equal(d.headers['content-length'], String(FILE.fileBytes));
        assert.equal(d.headers['content-type'], 'application/octet-stream');
        assert.match(String(d.headers['content-disposition']), /^attachment; filename="file-0\.bin"$/);
      }
      for (const b of bundles) assert.equal(b.status, 200);
      // Held whole, each answer was in memory before its headers went; streamed, a few chunks are.
      sample();
      const growth = peak - baseline;
      console.log(
        `# RSS growth with ${STALLED_DOWNLOADS} + 2 stalled answers: ${(growth / MB).toFixed(1)} MB`,
      );
      assert.ok(
        growth < STREAMED_RSS_GROWTH[mode],
        `RSS grew ${(growth / MB).toFixed(1)} MB (bound ${STREAMED_RSS_GROWTH[mode] / MB} MB)`,
      );

      // Read at last, each answer is whole and right.
      const reading = performance.now();
      for (const d of downloads.slice(0, 2)) assert.equal(sha256(await d.body()), digests[0]);
      for (const b of bundles) {
        const zip = await b.body();
        assert.equal(String(zip.length), b.headers['content-length']);
        const members = unzipSync(zip);
        const files = Object.keys(members).filter((p) => p.startsWith('attachments/'));
        assert.deepEqual(files.map((p) => sha256(members[p])).sort(), [...digests].sort());
        const manifest = JSON.parse(Buffer.from(members['manifest.json']).toString()) as {
          members: { path: string; size: number; sha256: string }[];
        };
        for (const m of manifest.members) {
          assert.equal(members[m.path].length, m.size, m.path);
          assert.equal(sha256(members[m.path]), m.sha256, m.path);
        }
      }
      console.log(`# 2 downloads and 2 bundles read in ${Math.round(performance.now() - reading)} ms`);
      // The stalled downloads' clients go away: their answers end and hold nothing.
      for (const d of downloads.slice(2)) d.leave();
    });

    // Held bundles must outgrow the sockets' buffers: embedded mode's three attestations.
    if (mode === 'embedded')
      it("past 2 heavy answers at once an organization gets 429 naming the limit; past the process's 2, 503", async () => {
        const heavy = n.t.app.get(HeavyOperations);
        await eventually(
          async () => heavy.inFlight(n.t.org).total,
          (total) => total === 0,
        );
        const bundleOf = (org: string, key: string) => stalledGet(n.baseUrl, `${trailPath(org)}/bundle`, key);
        const held = await Promise.all([bundleOf(n.t.org, n.t.key), bundleOf(n.t.org, n.t.key)]);
        stalled.push(...held);
        assert.deepEqual(
          held.map((h) => h.status),
          [200, 200],
        );
        const third = await n.asA(`${trailPath(n.t.org)}/bundle`);
        assert.equal(third.status, 429);
        assert.equal(third.headers.get('retry-after'), '5');
        const refusal = (await third.json()) as { message: string; errors: Record<string, string> };
        assert.match(
          refusal.message,
          /^Too many requests: this organization already has 2 bundles, PDFs or CSV/,
        );
        assert.ok('heavyOperations' in refusal.errors, JSON.stringify(refusal));
        // So are its PDFs and CSV exports; its other reads are not.
        assert.equal((await n.asA(`${trailPath(n.t.org)}/audit_pdf`)).status, 429);
        assert.equal(
          (await n.asA(`/api/v2/audit/${n.t.org}/changes`, { headers: { Accept: 'text/csv' } })).status,
          429,
        );
        assert.equal((await n.asA(trailPath(n.t.org))).status, 200);

        // B is refused for want of the process's places (A holds them all): 503, not 429.
        const ofB = await n.asB(`${trailPath(n.orgB)}/bundle`);
        assert.equal(ofB.status, 503);
        assert.equal(ofB.headers.get('retry-after'), '5');
        const busy = (await ofB.json()) as { message: string; errors: Record<string, string> };
        assert.match(busy.message, /^Service busy: too many bundles, PDFs or CSV exports in progress/);
        assert.ok('heavyOperations' in busy.errors, JSON.stringify(busy));

        // A client that leaves gives its place back; one that reads to the end does too.
        held[0].leave();
        await held[1].body();
        await eventually(
          async () => heavy.inFlight(n.t.org).total,
          (total) => total === 0,
        );
        const again = await n.asB(`${trailPath(n.orgB)}/bundle`);
        assert.equal(again.status, 200);
        await again.arrayBuffer();
      });
  });
}
