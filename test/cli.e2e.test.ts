import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SqliteEventStore } from '#des/event-store';
import { MongoReadStore } from '#des/read-store';
import { mongoEngine, uniqueName } from './support/engines';
import request from 'supertest';
import { APPS, eventually, startProcess } from './support/processes';
import { modeEnv, startApp } from './support/app';
import { allProjections } from '#des/service';

describe('cli', () => {
  it('`rebuild` replays the log into the read models and reports it', async () => {
    const eventsPath = join(mkdtempSync(join(tmpdir(), 'des-cli-')), 'events.db');
    const store = new SqliteEventStore({ path: eventsPath });
    for (let i = 0; i < 30; i++) {
      await store.append(
        `flow-acme/f${i % 3}`,
        [{ id: randomUUID(), type: 'flow_updated', data: { i }, metadata: { org: 'acme' } }],
        'any',
      );
    }
    await store.close();
    const mongoUrl = (await mongoEngine()).url;
    const database = uniqueName('cli');
    const reads = await new MongoReadStore({ url: mongoUrl, database }).connect();
    // A stale document the rebuild must drop.
    await reads
      .collection('stream_stats')
      .updateOne({ _id: 'stale' }, { $set: { events: 99 } }, { upsert: true });

    const run = spawnSync(process.execPath, [join(APPS, 'cli/src/main.js'), 'rebuild'], {
      env: {
        ...process.env,
        EVENT_STORE_URL: `sqlite:${eventsPath}`,
        MONGODB_URL: mongoUrl,
        MONGODB_DATABASE: database,
      },
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`rebuilt ${allProjections.length} projections from 30 events`));
    const docs = await reads.collection('stream_stats').find({}, { sort: { _id: 1 } });
    assert.deepEqual(
      docs.map((d) => [d._id, d.events]),
      [
        ['flow-acme/f0', 10],
        ['flow-acme/f1', 10],
        ['flow-acme/f2', 10],
      ],
    );
    await reads.close();
  });

  it('`org create` prints an admin key once; `key create` mints another; both work against the service', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'des-cli-org-'));
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [join(APPS, 'cli/src/main.js'), ...args], {
        env: { ...process.env, DES_DATA_DIR: dataDir, MONGODB_URL: '', REDIS_URL: '' },
        encoding: 'utf8',
      });
    const created = cli('org', 'create', 'beta', '--features', 'evaluations', '--max-users', '3');
    assert.equal(created.status, 0, created.stderr);
    assert.match(created.stdout, /Created organization 'beta' \(features: evaluations; at most 3 users\)/);
    const [adminKey] = created.stdout.match(/des_[A-Za-z0-9_-]{32}/) ?? [];
    assert.ok(adminKey);
    const again = cli('org', 'create', 'beta');
    assert.equal(again.status, 1);
    assert.match(again.stderr, /Organization 'beta' already exists/);
    const badFeature = cli('org', 'create', 'gamma', '--features', 'evaluations,teleport');
    assert.equal(badFeature.status, 1);
    assert.match(badFeature.stderr, /unknown feature\(s\) teleport/);
    const minted = cli('key', 'create', 'beta', 'admin', '--description', 'recovered');
    assert.equal(minted.status, 0, minted.stderr);
    const [secondKey] = minted.stdout.match(/des_[A-Za-z0-9_-]{32}/) ?? [];
    assert.ok(secondKey && secondKey !== adminKey);
    const unknownAccount = cli('key', 'create', 'beta', 'ghost');
    assert.equal(unknownAccount.status, 1);
    assert.match(unknownAccount.stderr, /Service account not found/);

    const t = await startApp({
      mode: 'embedded',
      env: { DES_DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
      bootstrap: false,
    });
    try {
      for (const key of [adminKey, secondKey]) {
        const res = await request(t.server)
          .get('/api/v2/service-accounts/beta/admin/api-keys')
          .set('Authorization', `Bearer ${key}`);
        assert.equal(res.status, 200);
        assert.deepEqual(res.body.map((k: { description: string }) => k.description).sort(), [
          'Bootstrap key',
          'recovered',
        ]);
      }
    } finally {
      await t.close();
    }
  });

  it('`rebuild` refuses to run while a projector process holds the lease, and runs once it stopped', async () => {
    const env = await modeEnv('server', { DES_PROJECTOR_LEASE_MS: '1000' });
    const projector = startProcess('projector', env);
    try {
      await eventually(
        async () => projector.output(),
        (o) => /caught up/.test(o),
        15_000,
      );
      const refused = await runCli(['rebuild'], env);
      assert.equal(refused.code, 1, refused.stdout + refused.stderr);
      assert.match(refused.stderr, /error: a projector process holds the projector lease/);
      assert.doesNotMatch(refused.stdout, /rebuilt/);
    } finally {
      await projector.stop(); // releases its lease
    }
    const run = await runCli(['rebuild'], env);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`rebuilt ${allProjections.length} projections`));
  });

  for (const mode of ['embedded', 'server'] as const) {
    it(`\`jobs list\` shows an organization's unfinished evaluations; \`jobs cancel\` fails one, or all (${mode})`, async () => {
      const ENDLESS = {
        'policy.rego':
          'package policy\nimport rego.v1\ndefault allow := false\nallow if count([x | some x in numbers.range(1, 3000000000); x % 7 == 3]) > 0\n',
      };
      // One evaluation of the organization runs at a time: the second waits its turn.
      const env = await modeEnv(mode, { DES_POLICY_BUDGET_MS: '600000', DES_ORG_EVALUATION_CONCURRENCY: '1' });
      const t = await startApp({ mode, env });
      try {
        await t.http.put('/api/v2/flows/acme').send({ name: 'svc' }).expect(201);
        await t.http.put('/api/v2/trails/acme/svc').send({ name: 'good' }).expect(201);
        const ids: string[] = [];
        for (let i = 0; i < 2; i++) {
          const posted = await t.http
            .post('/api/v2/evaluations/acme')
            .send({ context: { trails: [{ flow: 'svc', trail: 'good' }] }, policy: { files: ENDLESS } });
          assert.equal(posted.status, 201, posted.text);
          ids.push(posted.body.id);
        }
        const [running, waiting] = ids;
        const cliEnv = { ...env, LOG_LEVEL: 'error' };
        const listed = await eventually(
          () => runCli(['jobs', 'list', 'acme'], cliEnv),
          (r) => r.code === 0 && new RegExp(`${running}\\s+evaluation\\s+running\\s+1\\s+\\d+s`).test(r.stdout),
          60_000,
        );
        assert.match(listed.stdout, /Jobs of 'acme' not finished \(2\):/);
        assert.match(listed.stdout, new RegExp(`${waiting}\\s+evaluation\\s+pending\\s+0\\s+\\d+s`));
        assert.deepEqual((await runCli(['jobs', 'list', 'other'], cliEnv)).stdout.trim(), "No pending or running jobs for 'other'.");

        const one = await runCli(['jobs', 'cancel', 'acme', waiting], cliEnv);
        assert.equal(one.code, 0, one.stderr);
        assert.match(one.stdout, new RegExp(`cancelled evaluation ${waiting}\n1 job\\(s\\) of 'acme' cancelled`));
        const cancelled = await eventually(
          async () => (await t.http.get(`/api/v2/evaluations/acme/${waiting}`)).body,
          (b) => b.status !== 'pending',
        );
        assert.deepEqual(cancelled.error, { kind: 'service_error', message: 'cancelled by an operator' });
        const again = await runCli(['jobs', 'cancel', 'acme', waiting], cliEnv);
        assert.equal(again.code, 1);
        assert.match(again.stderr, new RegExp(`'acme' has no pending or running job ${waiting}`));

        const all = await runCli(['jobs', 'cancel', 'acme', '--all'], cliEnv);
        assert.equal(all.code, 0, all.stderr);
        assert.match(all.stdout, new RegExp(`cancelled evaluation ${running}\n1 job\\(s\\) of 'acme' cancelled`));
        await eventually(
          async () => (await t.http.get(`/api/v2/evaluations/acme/${running}`)).body.status,
          (status) => status === 'failed',
        );
        assert.equal((await runCli(['jobs', 'list', 'acme'], cliEnv)).stdout.trim(), "No pending or running jobs for 'acme'.");
      } finally {
        await t.close();
      }
    });
  }

  it('refuses an unknown command with usage and exit code 2', () => {
    const run = spawnSync(process.execPath, [join(APPS, 'cli/src/main.js'), 'frobnicate'], {
      encoding: 'utf8',
    });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /unknown command 'frobnicate'/);
    assert.match(run.stderr, /rebuild/);
  });
});

/** Runs the CLI without blocking this process (a child process it talks to keeps running). */
function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(APPS, 'cli/src/main.js'), ...args], {
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
