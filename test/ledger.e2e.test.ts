import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { modeEnv, startApp, TestApp } from './support/app';
import { checkpointCovering } from './support/ledger';
import { APPS } from './support/processes';
import { clockPast, stepInstant, wallClock } from './support/time-travel';
import { binary, textOf } from './support/pdf';

describe('tamper evidence: the ledger head, checkpoints in the PDFs, verify (embedded mode)', () => {
  let t: TestApp;
  let env: NodeJS.ProcessEnv;
  let before0 = 0;
  let afterFirst = 0;
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, [join(APPS, 'cli/src/main.js'), ...args], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });

  before(async () => {
    env = await modeEnv('embedded');
    t = await startApp({ mode: 'embedded', env });
    before0 = wallClock();
    await clockPast(before0);
    await t.http.put('/api/v2/flows/acme').send({ name: 'pay' }).expect(201);
    afterFirst = await stepInstant(t);
    await t.http.put('/api/v2/trails/acme/pay').send({ name: 'r1' }).expect(201);
    await t.http
      .post('/api/v2/attestations/acme/pay/trail/r1/generic')
      .send({ attestation_name: 'smoke', description: 'all good' })
      .expect(201);
  });
  after(async () => t.close());

  it('answers the ledger head: the latest signed checkpoint and the event it ends at, now and kept by an instant', async () => {
    const checkpoint = await checkpointCovering(t, 'acme');
    const head = (await t.http.get('/api/v2/ledger/acme/head').expect(200)).body;
    assert.deepEqual(
      [head.org, head.at, head.tree_size, head.root_hash, head.signed_at],
      ['acme', null, checkpoint.tree_size, checkpoint.root_hash, checkpoint.recorded_at],
    );
    const last = (await t.http.get(`/api/v2/ledger/acme/entries/${checkpoint.tree_size - 1}`).expect(200))
      .body;
    assert.equal(head.position, last.position);
    assert.equal(head.recorded_at, JSON.parse(last.canonical).recorded_at / 1e6);
    const then = (await t.http.get(`/api/v2/ledger/acme/head?at=${checkpoint.recorded_at}`).expect(200)).body;
    assert.deepEqual([then.tree_size, then.at], [checkpoint.tree_size, checkpoint.recorded_at]);
    const never = await t.http.get('/api/v2/ledger/acme/head?at=1000000000');
    assert.deepEqual([never.status, never.body.message], [404, 'No checkpoint yet']);
    const future = await t.http.get(`/api/v2/ledger/acme/head?at=${Math.ceil(wallClock()) + 3600}`);
    assert.equal(future.status, 400);
  });

  it('answers the checkpoint kept for a tree size, which a printed report names', async () => {
    const checkpoint = await checkpointCovering(t, 'acme');
    const kept = (
      await t.http
        .get('/api/v2/ledger/acme/checkpoint')
        .query({ tree_size: checkpoint.tree_size })
        .expect(200)
    ).body;
    assert.deepEqual(kept, checkpoint);
    const none = await t.http.get('/api/v2/ledger/acme/checkpoint').query({ tree_size: 1_000_000 });
    assert.deepEqual([none.status, none.body.message], [404, 'No checkpoint of tree size 1000000']);
    const both = await t.http
      .get('/api/v2/ledger/acme/checkpoint')
      .query({ tree_size: checkpoint.tree_size, at: checkpoint.recorded_at });
    assert.deepEqual(
      [both.status, both.body.errors],
      [400, { tree_size: 'tree_size names one checkpoint: not with at' }],
    );
  });

  it('prints no report of a trail before it existed', async () => {
    const past = await t.http
      .get(`/api/v2/trails/acme/pay/r1/audit_pdf?at=${afterFirst}`)
      .buffer(true)
      .parse(binary);
    assert.equal(past.status, 404, 'the trail did not exist yet');
  });

  it('prints the signed checkpoint covering its instant in the audit PDFs, with the calls that check it', async () => {
    await t.http.put('/api/v2/environments/acme').send({ name: 'prod', type: 'K8S' }).expect(201);
    const checkpoint = await checkpointCovering(t, 'acme');
    const at = checkpoint.recorded_at;
    for (const path of ['/api/v2/trails/acme/pay/r1/audit_pdf', '/api/v2/environments/acme/prod/audit_pdf']) {
      const pdf = await t.http.get(path).query({ at }).buffer(true).parse(binary);
      assert.equal(pdf.status, 200, path);
      const text = textOf(pdf.body as Buffer).replace(/\s+/g, ' ');
      const printed =
        /Signed checkpoint Tree size (\d+), root (\S+) ?, signed .*? \((\d+) events by this instant\)/.exec(
          text,
        );
      assert.ok(printed, text.slice(0, 1500));
      const [, size, root, leaves] = printed;
      // The history up to the instant: every event recorded by then, under the first checkpoint that holds them.
      assert.ok(Number(size) >= Number(leaves), `${size} ≥ ${leaves}`);
      const kept = (await t.http.get('/api/v2/ledger/acme/checkpoint').query({ at }).expect(200)).body;
      if (path.includes('trails')) assert.deepEqual([Number(size), root], [kept.tree_size, kept.root_hash]);
      assert.match(
        text,
        new RegExp(`Check: GET /api/v2/ledger/acme/checkpoint\\?tree_size=${size} answers this checkpoint`),
      );
      assert.doesNotMatch(text, /Ledger head/, 'the retired hash chain is printed no more');
    }
  });

  it('`verify` rebuilds every tree, checks the checkpoints, and names the events an altered one is among', async () => {
    // Every event of acme under a signed checkpoint before the service stops.
    const checkpoint = await checkpointCovering(t, 'acme');
    await t.close();
    const ok = cli('verify', 'acme');
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
    assert.match(
      ok.stdout,
      new RegExp(
        `acme: tree of ${checkpoint.tree_size} events, \\d+ signed checkpoint\\(s\\), every one holds`,
      ),
    );
    assert.match(ok.stdout, /every checkpoint holds/);

    // One byte of the attestation's stored description, changed behind the service's back.
    const path = t.config.eventStore.kind === 'sqlite' ? t.config.eventStore.path : '';
    const db = new Database(path);
    const row = db.prepare("SELECT position, data FROM events WHERE type = 'attestation_reported'").get() as {
      position: number;
      data: string;
    };
    db.prepare('UPDATE events SET data = ? WHERE position = ?').run(
      row.data.replace('all good', 'all gooD'),
      row.position,
    );
    db.close();
    const broken = cli('verify');
    assert.equal(broken.status, 1, broken.stdout);
    const [, from, to] =
      /CHECKPOINT FAILS at position \d+ \(tree size \d+\): its root \S+ is not the root the log makes, \S+; the change is among its events \d+\.\.\d+ \(log positions (\d+)\.\.(\d+)\)/.exec(
        broken.stdout,
      ) ?? [];
    assert.ok(from && Number(from) <= row.position && row.position <= Number(to), broken.stdout);
    assert.match(broken.stdout, /1 tree\(s\) with a failing checkpoint/);
    t = await startApp({ mode: 'embedded', env, bootstrap: false, key: t.key });
  });
});
