import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { unzipSync } from 'fflate';
import { type Mode, modeEnv, startApp, type TestApp } from './support/app';
import { type Checkpoint, eventsOf } from './support/ledger';
import { binary } from './support/pdf';
import { eventually } from './support/processes';
import { type LocalTsa, opensslVerifies, startLocalTsa } from './support/tsa';

type Timestamped = Checkpoint & { timestamp: string | null };

/** The latest checkpoint, once it covers every event of acme and the TSA's timestamp is kept with it. */
async function timestampedCheckpoint(t: TestApp): Promise<Timestamped> {
  const { latest } = await eventually(
    async () => ({
      events: await eventsOf(t, 'acme'),
      latest: (await t.http.get('/api/v2/ledger/acme/checkpoint')).body as Timestamped,
    }),
    ({ events, latest }) => latest?.tree_size === events && !!latest.timestamp,
  );
  return latest;
}

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`RFC 3161 timestamps of the signed checkpoints, from a local openssl TSA (${mode} mode)`, () => {
    let t: TestApp;
    let tsa: LocalTsa;

    before(async () => {
      tsa = await startLocalTsa();
      t = await startApp({
        mode,
        env: await modeEnv(mode, { DES_LEDGER_CHECKPOINT_MS: '200', DES_TSA_URL: tsa.url }),
      });
      await t.http.put('/api/v2/flows/acme').send({ name: 'shop' }).expect(201);
      await t.http.put('/api/v2/trails/acme/shop').send({ name: 'build-1' }).expect(201);
    });
    after(async () => {
      await t.close();
      await tsa.close();
    });

    it('keeps a timestamp of each checkpoint that openssl ts -verify accepts for its note', async () => {
      const checkpoint = await timestampedCheckpoint(t);
      const verified = opensslVerifies(
        tsa,
        Buffer.from(checkpoint.timestamp!, 'base64'),
        Buffer.from(checkpoint.note),
      );
      assert.ok(verified.ok, verified.output);
      assert.match(verified.output, /Verification: OK/);
      const other = opensslVerifies(
        tsa,
        Buffer.from(checkpoint.timestamp!, 'base64'),
        Buffer.from(`${checkpoint.note} `),
      );
      assert.equal(other.ok, false, 'not a timestamp of other bytes');
    });

    it('puts the timestamp in a bundle as checkpoint.tsr, which verify.mjs names and openssl verifies', async () => {
      await t.http
        .post('/api/v2/attestations/acme/shop/trail/build-1/generic')
        .send({ attestation_name: 'smoke' })
        .expect(201);
      await timestampedCheckpoint(t);
      const res = await t.http.get('/api/v2/trails/acme/shop/build-1/bundle').buffer(true).parse(binary);
      assert.equal(res.status, 200);
      const members = unzipSync(res.body as Buffer);
      assert.ok(members['checkpoint.tsr'], 'the bundle holds the timestamp');
      const verified = opensslVerifies(
        tsa,
        Buffer.from(members['checkpoint.tsr']),
        Buffer.from(members['checkpoint.txt']),
      );
      assert.ok(verified.ok, verified.output);
      const dir = mkdtempSync(join(tmpdir(), 'des-bundle-tsr-'));
      try {
        writeFileSync(join(dir, 'verify.mjs'), members['verify.mjs']);
        writeFileSync(join(dir, 'bundle.zip'), res.body as Buffer);
        const run = spawnSync(process.execPath, ['verify.mjs', 'bundle.zip'], {
          cwd: dir,
          encoding: 'utf8',
          env: { PATH: process.env.PATH },
        });
        assert.equal(run.status, 0, run.stderr);
        assert.match(run.stdout, /checkpoint\.tsr is an RFC 3161 timestamp of checkpoint\.txt/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('goes on signing checkpoints when the TSA is down; they carry no timestamp', async () => {
      await tsa.close();
      // Counted once closed: a request in flight has been answered by then.
      const answered = tsa.answered();
      await t.http.put('/api/v2/trails/acme/shop').send({ name: 'build-2' }).expect(201);
      const latest = (
        await eventually(
          async () => ({
            events: await eventsOf(t, 'acme'),
            latest: (await t.http.get('/api/v2/ledger/acme/checkpoint')).body as Timestamped,
          }),
          ({ events, latest }) => latest?.tree_size === events,
        )
      ).latest;
      assert.equal(latest.timestamp, null);
      assert.equal(tsa.answered(), answered, 'nothing answered while it was down');
    });
  });
}

describe('RFC 3161 timestamps when the TSA refuses at first (embedded mode)', () => {
  let t: TestApp;
  let tsa: LocalTsa;
  before(async () => {
    tsa = await startLocalTsa({ refuseFirst: 2 });
    t = await startApp({
      mode: 'embedded',
      env: await modeEnv('embedded', { DES_LEDGER_CHECKPOINT_MS: '200', DES_TSA_URL: tsa.url }),
    });
  });
  after(async () => {
    await t.close();
    await tsa.close();
  });

  it('asks again after a back-off: the latest checkpoint gets its timestamp with no event after it', async () => {
    await t.http.put('/api/v2/flows/acme').send({ name: 'shop' }).expect(201);
    const latest = await timestampedCheckpoint(t);
    const verified = opensslVerifies(tsa, Buffer.from(latest.timestamp!, 'base64'), Buffer.from(latest.note));
    assert.ok(verified.ok, verified.output);
    assert.equal(
      tsa.refused(),
      2,
      'the TSA refused the first two requests, and the checkpoint was asked for again',
    );
  });
});
