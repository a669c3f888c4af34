import assert from 'node:assert/strict';
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { unzipSync, zipSync } from 'fflate';
import { type Mode, modeEnv, startApp, type TestApp } from './support/app';
import { binary } from './support/pdf';
import { APPS, eventually } from './support/processes';
import { settle } from './support/time-travel';
import { readWholeLog } from './support/log';
import { EVENT_STORE } from '#des/platform';
import { type EventStore, UpcastingEventStore } from '#des/event-store';

const FP = 'a1'.repeat(32);
const NOTES = 'release notes\nline two\n';
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

interface Manifest {
  format: string;
  org: string;
  subject: Record<string, unknown>;
  at: number;
  checkpoint: { origin: string; tree_size: number; root_hash: string };
  events: number;
  members: { path: string; size: number; sha256: string }[];
}

/** A directory outside the project, where only plain `node` runs: what an auditor's machine has. */
function offline(): {
  dir: string;
  write(name: string, bytes: Uint8Array): string;
  verify(...args: string[]): SpawnSyncReturns<string>;
} {
  const dir = mkdtempSync(join(tmpdir(), 'des-bundle-'));
  return {
    dir,
    write: (name, bytes) => {
      writeFileSync(join(dir, name), bytes);
      return join(dir, name);
    },
    verify: (...args) =>
      spawnSync(process.execPath, ['verify.mjs', ...args], {
        cwd: dir,
        env: { PATH: process.env.PATH },
        encoding: 'utf8',
      }),
  };
}

/** One byte of `bytes` changed (in the middle, so that a PDF's or a JSON's structure may still parse). */
function flipped(bytes: Uint8Array): Uint8Array {
  const copy = Uint8Array.from(bytes);
  const at = Math.floor(copy.length / 2);
  copy[at] = copy[at] === 0x41 ? 0x42 : 0x41;
  return copy;
}

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`evidence bundles, verifiable offline (${mode} mode)`, () => {
    let t: TestApp;
    let env: NodeJS.ProcessEnv;
    let vkey: string;
    let zip: Buffer;
    let members: Record<string, Uint8Array>;
    let place: ReturnType<typeof offline>;

    const bundleOf = async (path: string) => {
      const res = await t.http.get(path).buffer(true).parse(binary);
      assert.equal(res.status, 200, res.status === 200 ? '' : res.body.toString());
      assert.equal(res.headers['content-type'], 'application/zip');
      return res.body as Buffer;
    };
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [join(APPS, 'cli/src/main.js'), ...args], {
        env: { ...process.env, ...env },
        encoding: 'utf8',
      });

    before(async () => {
      env = await modeEnv(mode, { DES_LEDGER_CHECKPOINT_MS: '200' });
      t = await startApp({ mode, env });
      await t.http.put('/api/v2/flows/acme').send({ name: 'shop' }).expect(201);
      await t.http
        .put('/api/v2/trails/acme/shop')
        .send({ name: 'build-1', git_commit_info: { sha1: 'aaa111', message: 'basket', author: 'grace' } })
        .expect(201);
      await t.http
        .post('/api/v2/artifacts/acme/shop')
        .send({ fingerprint: FP, filename: 'shop:1', trail_name: 'build-1' })
        .expect(201);
      const sent = await t.http
        .post('/api/v2/attestations/acme/shop/trail/build-1/generic')
        .field('data_json', JSON.stringify({ attestation_name: 'notes' }))
        .attach('attachment_file', Buffer.from(NOTES), 'notes.txt');
      assert.equal(sent.status, 201, sent.text);
      await settle(t);
      vkey = (await t.http.get('/api/v2/ledger/acme/key').expect(200)).body.vkey;
      zip = await bundleOf('/api/v2/trails/acme/shop/build-1/bundle');
      members = unzipSync(zip);
      place = offline();
      place.write('verify.mjs', members['verify.mjs']);
    });
    after(async () => {
      rmSync(place.dir, { recursive: true, force: true });
      await t.close();
    });

    it("holds the trail's record, audit PDF, attachment and events, each listed in the manifest with its SHA-256", () => {
      const manifest = JSON.parse(Buffer.from(members['manifest.json']).toString()) as Manifest;
      assert.equal(manifest.format, 'des-evidence-bundle/1');
      assert.deepEqual(
        [manifest.org, manifest.subject],
        ['acme', { kind: 'trail', flow: 'shop', trail: 'build-1' }],
      );
      const paths = manifest.members.map((m) => m.path);
      const attachment = `attachments/${sha256(Buffer.from(NOTES))}/notes.txt`;
      for (const path of [
        'records/trail.json',
        'reports/trail-audit.pdf',
        attachment,
        'events.jsonl',
        'checkpoint.txt',
        'key.txt',
        'verify.mjs',
      ])
        assert.ok(paths.includes(path), `${path} is in the bundle`);
      assert.deepEqual(Object.keys(members).sort(), [...paths, 'manifest.json', 'manifest.sig'].sort());
      for (const m of manifest.members) {
        assert.equal(m.size, members[m.path].length, m.path);
        assert.equal(m.sha256, sha256(members[m.path]), m.path);
      }
      assert.equal(Buffer.from(members[attachment]).toString(), NOTES);
      assert.equal(Buffer.from(members['key.txt']).toString().trim(), vkey);
      assert.match(Buffer.from(members['reports/trail-audit.pdf']).subarray(0, 5).toString(), /^%PDF-/);
      const trail = JSON.parse(Buffer.from(members['records/trail.json']).toString());
      assert.equal(trail.name, 'build-1');
      // Every event of the flow's and the trail's streams, in log order, each with the text its leaf hashes.
      const events = Buffer.from(members['events.jsonl'])
        .toString()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.equal(events.length, manifest.events);
      const streams = events.map((e) => JSON.parse(e.canonical).stream as string);
      assert.deepEqual([...new Set(streams)].sort(), ['flow-acme/shop', 'trail-acme/shop/build-1']);
      assert.deepEqual(
        events.map((e) => e.position),
        [...events.map((e) => e.position)].sort((a, b) => a - b),
      );
    });

    it('verifies with plain node from a directory outside the project, with the key pinned or from the bundle', () => {
      const path = place.write('bundle.zip', zip);
      const pinned = place.verify(path, '--key', vkey);
      assert.equal(pinned.status, 0, pinned.stderr);
      assert.match(
        pinned.stdout,
        /^OK: \d+ files match the signed manifest; \d+ events are in .*acme's tree of \d+/,
      );
      assert.doesNotMatch(pinned.stdout, /pass --key/);
      const unpinned = place.verify(path);
      assert.equal(unpinned.status, 0, unpinned.stderr);
      assert.match(unpinned.stdout, /the key in key\.txt: pass --key to pin it/);
      // An unzipped bundle verifies as well.
      const unzipped = join(place.dir, 'unzipped');
      spawnSync('mkdir', ['-p', unzipped]);
      for (const [name, bytes] of Object.entries(members)) {
        spawnSync('mkdir', ['-p', join(unzipped, name, '..')]);
        writeFileSync(join(unzipped, name), bytes);
      }
      const fromDirectory = place.verify(unzipped, '--key', vkey);
      assert.equal(fromDirectory.status, 0, fromDirectory.stderr);
    });

    it('names the member when one byte of a record, the PDF, an attachment, a proof or the checkpoint changed', () => {
      const attachment = Object.keys(members).find((p) => p.startsWith('attachments/'))!;
      for (const member of [
        'records/trail.json',
        'reports/trail-audit.pdf',
        attachment,
        'events.jsonl',
        'checkpoint.txt',
      ]) {
        const path = place.write('tampered.zip', zipSync({ ...members, [member]: flipped(members[member]) }));
        const run = place.verify(path, '--key', vkey);
        assert.equal(run.status, 1, `${member}: ${run.stdout}`);
        assert.equal(
          run.stderr.trim(),
          `FAILED: ${member}: its content differs from the SHA-256 the manifest lists`,
        );
      }
    });

    it('finds a changed proof even when the manifest was made to match it: the manifest is signed', () => {
      const lines = Buffer.from(members['events.jsonl']).toString().trim().split('\n');
      const entry = JSON.parse(lines[0]);
      entry.inclusion = entry.inclusion.length
        ? [Buffer.alloc(32, 7).toString('base64'), ...entry.inclusion.slice(1)]
        : [Buffer.alloc(32, 7).toString('base64')];
      lines[0] = JSON.stringify(entry);
      const events = Buffer.from(`${lines.join('\n')}\n`);
      const manifest = JSON.parse(Buffer.from(members['manifest.json']).toString()) as Manifest;
      const listed = manifest.members.find((m) => m.path === 'events.jsonl')!;
      Object.assign(listed, { size: events.length, sha256: sha256(events) });
      const forged = {
        ...members,
        'events.jsonl': events,
        'manifest.json': Buffer.from(JSON.stringify(manifest)),
      };
      const run = place.verify(place.write('forged.zip', zipSync(forged)), '--key', vkey);
      assert.equal(run.status, 1);
      assert.equal(run.stderr.trim(), 'FAILED: manifest.json: its SHA-256 is not the one manifest.sig signs');
    });

    it('refuses a bundle signed by another key than the one pinned, and a member the manifest does not list', () => {
      const path = place.write('bundle.zip', zip);
      const other = vkey.replace(/\+[0-9a-f]{8}\+/, '+00000000+');
      const wrong = place.verify(path, '--key', other);
      assert.equal(wrong.status, 1);
      assert.equal(wrong.stderr.trim(), 'FAILED: key.txt: not the key given with --key');
      const extra = place.verify(
        place.write('extra.zip', zipSync({ ...members, 'records/extra.json': Buffer.from('{}') })),
      );
      assert.equal(extra.stderr.trim(), 'FAILED: records/extra.json: not in the manifest');
    });

    it('npm run cli -- verify-bundle checks it as verify.mjs does', () => {
      const ok = cli('verify-bundle', place.write('bundle.zip', zip), '--key', vkey);
      assert.equal(ok.status, 0, ok.stderr);
      assert.equal(ok.stdout, place.verify(join(place.dir, 'bundle.zip'), '--key', vkey).stdout);
      const tampered = place.write(
        'tampered.zip',
        zipSync({ ...members, 'checkpoint.txt': flipped(members['checkpoint.txt']) }),
      );
      const failed = cli('verify-bundle', tampered, '--key', vkey);
      assert.equal(failed.status, 1);
      assert.match(failed.stderr, /FAILED: checkpoint\.txt: /);
    });

    it('records each export as an event of the organization: who exported what, as of when', async () => {
      const store = t.app.get<symbol, EventStore>(EVENT_STORE);
      const manifestSha = sha256(members['manifest.json']);
      const exported = await eventually(
        async () =>
          (await readWholeLog(store instanceof UpcastingEventStore ? store.inner : store)).filter(
            (e) => e.type === 'ledger_bundle_exported' && e.data.manifest_sha256 === manifestSha,
          ),
        (found) => found.length === 1,
      );
      const manifest = JSON.parse(Buffer.from(members['manifest.json']).toString()) as Manifest;
      assert.deepEqual(exported[0].data.subject, manifest.subject);
      assert.equal(exported[0].data.at, manifest.at);
      assert.equal(exported[0].metadata.org, 'acme');
      assert.ok(exported[0].metadata.actor?.name, 'the exporter is named');
    });

    it('bundles a trail as it was at an instant, and answers 404 for a trail that does not exist', async () => {
      const first = JSON.parse(Buffer.from(members['manifest.json']).toString()) as Manifest;
      await t.http
        .post('/api/v2/attestations/acme/shop/trail/build-1/generic')
        .send({ attestation_name: 'later' })
        .expect(201);
      const then = unzipSync(await bundleOf(`/api/v2/trails/acme/shop/build-1/bundle?at=${first.at}`));
      const thenTrail = JSON.parse(Buffer.from(then['records/trail.json']).toString());
      assert.equal(thenTrail.attestations.later, undefined, 'nothing recorded after the instant');
      const texts = (bytes: Uint8Array) =>
        Buffer.from(bytes)
          .toString()
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).canonical as string);
      assert.deepEqual(
        texts(then['events.jsonl']),
        texts(members['events.jsonl']),
        'the same events, proven anew',
      );
      const res = await t.http.get('/api/v2/trails/acme/shop/nope/bundle');
      assert.equal(res.status, 404);
      assert.equal(res.body.message, 'Flow or trail not found');
    });

    it('bundles a sample of the change population, with the sampled trails’ PDFs, and verifies it', async () => {
      await t.http.put('/api/v2/environments/acme').send({ name: 'prod', type: 'K8S' }).expect(201);
      await t.http
        .put('/api/v2/environments/acme/prod/report/K8S')
        .send({
          artifacts: [
            {
              creationTimestamp: 1_790_000_000,
              digests: { 'shop:1': `sha256:${FP}` },
              namespace: 'shop',
              podName: 'shop-1',
            },
          ],
        })
        .expect(201);
      await settle(t);
      const sample = unzipSync(await bundleOf('/api/v2/audit/acme/changes/bundle?seed=Q4&size=5'));
      const record = JSON.parse(Buffer.from(sample['records/changes.json']).toString());
      assert.deepEqual([record.seed, record.size, record.population_total], ['Q4', 5, 1]);
      assert.equal(record.changes[0].trail, 'build-1');
      assert.ok(sample['reports/trails/shop-build-1-audit.pdf'], "the sampled trail's PDF");
      const proven = Buffer.from(sample['events.jsonl'])
        .toString()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(JSON.parse(l).canonical) as { stream: string; type: string });
      assert.ok(
        proven.some((e) => e.stream.startsWith('environment-acme/prod') && e.type === 'snapshot_created'),
        'the report that started the change is proven too',
      );
      assert.ok(
        proven.some((e) => e.stream === 'trail-acme/shop/build-1'),
        "and its trail's events",
      );
      const run = place.verify(place.write('sample.zip', zipSync(sample)), '--key', vkey);
      assert.equal(run.status, 0, run.stderr);
      const population = unzipSync(await bundleOf('/api/v2/audit/acme/changes/bundle'));
      assert.equal(JSON.parse(Buffer.from(population['records/changes.json']).toString()).total_count, 1);
      // An instant before anything (and before the zip format's 1980) is an empty population.
      const empty = unzipSync(await bundleOf('/api/v2/audit/acme/changes/bundle?at=0'));
      assert.equal(JSON.parse(Buffer.from(empty['records/changes.json']).toString()).population_total, 0);
      const half = await t.http.get('/api/v2/audit/acme/changes/bundle?seed=Q4');
      assert.equal(half.status, 400);
      assert.deepEqual(half.body.errors, { size: 'seed and size draw a sample together' });
      const large = await t.http.get('/api/v2/audit/acme/changes/bundle?seed=Q4&size=101');
      assert.deepEqual([large.status, large.body.errors], [400, { size: 'size must be an integer from 1 to 100' }]);
    });
  });
}
