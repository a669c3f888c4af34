import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MongoClient } from 'mongodb';
import request from 'supertest';
import { freePort } from './support/engines';
import { Mode, modeEnv } from './support/app';
import { Child, eventually, startProcess, startProjector } from './support/processes';
import { Receiver } from './support/receiver';

/** Every file under a directory, as bytes read as latin1 (so any ASCII secret is found as is). */
function filesUnder(dir: string): { path: string; text: string }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [{ path, text: readFileSync(path, 'latin1') }];
  });
}

async function mongoDump(url: string, database: string): Promise<string> {
  const client = await MongoClient.connect(url);
  try {
    const db = client.db(database);
    const dump: string[] = [];
    for (const { name } of await db.listCollections().toArray()) {
      dump.push(JSON.stringify(await db.collection(name).find().toArray()));
    }
    return dump.join('\n');
  } finally {
    await client.close();
  }
}

/**
 * API keys and action signing secrets, minted and used through the real
 * processes with debug logging: none of them is ever in the event log, the
 * read models (the saved file, the MongoDB-wire database) or a log line.
 */
for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`secrets are never stored or logged in clear (${mode} mode)`, () => {
    let env: NodeJS.ProcessEnv;
    let processes: Child[] = [];
    const receiver = new Receiver();
    let base: string;
    const secrets: { what: string; value: string }[] = [];
    let firstKey: string;

    before(async () => {
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      env = await modeEnv(mode, {
        PORT: String(port),
        HOST: '127.0.0.1',
        DES_ORG: 'vault',
        LOG_LEVEL: 'debug',
        DES_ACTIONS_ALLOW_PRIVATE_TARGETS: 'true',
      });
      if (mode === 'server') processes = [await startProjector(env), startProcess('worker', env)];
      const api = startProcess('api', env);
      processes.push(api);
      const output = await eventually(
        async () => api.output(),
        (o) => /on http:\/\/127\.0\.0\.1:\d+\/api\/v2/.test(o),
        30_000,
      );
      firstKey = output.match(/des_[A-Za-z0-9_-]{32}/)![0];
      secrets.push({ what: 'the first admin key', value: firstKey });
      const http = (key = firstKey) => ({
        get: (path: string) => request(base).get(path).set('Authorization', `Bearer ${key}`),
        post: (path: string) => request(base).post(path).set('Authorization', `Bearer ${key}`),
        put: (path: string) => request(base).put(path).set('Authorization', `Bearer ${key}`),
        delete: (path: string) => request(base).delete(path).set('Authorization', `Bearer ${key}`),
      });

      assert.equal(
        (await http().post('/api/v2/service-accounts/vault').send({ name: 'ci', privilege: 'admin' })).status,
        201,
      );
      // Writes with an Idempotency-Key keep their answer for replays: encrypted, as it holds the secret.
      const kept = async (send: () => request.Test) => {
        const first = await send();
        const replay = await send();
        assert.equal(replay.headers['idempotent-replayed'], 'true');
        assert.equal(replay.text, first.text, 'the kept answer, decrypted, is the answer sent');
        return first;
      };
      for (const description of ['one', 'two']) {
        const mint = () => http().post('/api/v2/service-accounts/vault/ci/api-keys').send({ description });
        const res =
          description === 'two' ? await kept(() => mint().set('Idempotency-Key', 'mint-two')) : await mint();
        assert.equal(res.status, 201, JSON.stringify(res.body));
        secrets.push({ what: `api key ${description}`, value: res.body.key });
      }
      const [, one, two] = secrets.map((s) => s.value);
      // Used every way a key can be presented: Bearer, Basic, and (revoked) refused.
      assert.equal((await http(one).get('/api/v2/flows/vault')).status, 200);
      const basic = await request(base)
        .get('/api/v2/flows/vault')
        .set('Authorization', `Basic ${Buffer.from(`${two}:`).toString('base64')}`);
      assert.equal(basic.status, 200);
      const keys = await http().get('/api/v2/service-accounts/vault/ci/api-keys');
      const idOfTwo = (keys.body as { id: string; description: string }[]).find(
        (k) => k.description === 'two',
      )!.id;
      assert.equal(
        (await http().delete(`/api/v2/service-accounts/vault/ci/api-keys/${idOfTwo}`)).status,
        200,
      );
      assert.equal((await http(two).get('/api/v2/flows/vault')).status, 401);
      assert.equal((await http(`${one}x`).get('/api/v2/flows/vault')).status, 401);

      const target = await receiver.start();
      assert.equal(
        (await http(one).put('/api/v2/environments/vault').send({ name: 'prod', type: 'K8S' })).status,
        201,
      );
      const action = await kept(() =>
        http(one)
          .put('/api/v2/actions/vault/environments')
          .set('Idempotency-Key', 'action-watch')
          .send({
            name: 'watch',
            environments: ['prod'],
            triggers: ['ON_STARTED_ARTIFACT'],
            targets: [{ type: 'WEBHOOK', webhook: `${target}/hook` }],
          }),
      );
      assert.equal(action.status, 201, JSON.stringify(action.body));
      secrets.push({ what: 'the action secret', value: action.body.secret });
      const rotated = await kept(() =>
        http(one).post('/api/v2/actions/vault/1/secret').set('Idempotency-Key', 'rotate-1'),
      );
      assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
      secrets.push({ what: 'the rotated action secret', value: rotated.body.secret });
      const report = await http(one)
        .put('/api/v2/environments/vault/prod/report/K8S')
        .send({
          artifacts: [
            {
              podName: 'p',
              namespace: 'n',
              creationTimestamp: 1_790_000_000,
              digests: { 'shop:1': `sha256:${'ab'.repeat(32)}` },
            },
          ],
        });
      assert.equal(report.status, 201);
      // The webhook was signed with the secret (so the secret was used), and the body does not carry it.
      await eventually(
        async () => receiver.received.length,
        (n) => n > 0,
      );
      for (const r of receiver.received) {
        assert.ok(!r.body.includes(rotated.body.secret));
      }
      for (const child of processes) await child.stop();
    });
    after(async () => {
      for (const child of processes) await child.stop();
      await receiver.close();
    });

    it('keeps no secret in the event log or the saved read models', () => {
      const files = filesUnder(env.DES_DATA_DIR!);
      assert.ok(
        files.some((f) => f.path.endsWith('events.db')),
        files.map((f) => f.path).join(', '),
      );
      for (const file of files) {
        // The one place the first admin key is kept on purpose: readable by its owner only.
        if (file.path.endsWith('/initial-admin-key')) {
          assert.equal(statSync(file.path).mode & 0o777, 0o600, `${file.path} is for its owner only`);
          continue;
        }
        for (const s of secrets) {
          assert.ok(!file.text.includes(s.value), `${s.what} is in ${file.path}`);
        }
      }
      console.log(
        `# secrets (${mode}): ${secrets.length} secrets, ${files.length} data files scanned, none found`,
      );
    });

    if (mode === 'server') {
      it('keeps no secret in the read models of the MongoDB-wire server', async () => {
        const dump = await mongoDump(env.MONGODB_URL!, env.MONGODB_DATABASE!);
        assert.ok(dump.includes('watch') && dump.includes('vault'), 'the dump holds the read models');
        for (const s of secrets) assert.ok(!dump.includes(s.value), `${s.what} is in the read store`);
      });
    }

    it('never logs a secret (the first key is printed once, at creation, on purpose)', () => {
      const logs = processes.map((p) => p.output()).join('\n');
      assert.ok(/"level":30/.test(logs), 'the processes logged as JSON');
      assert.ok(logs.includes('/api/v2/service-accounts/vault/ci/api-keys'), 'the requests were logged');
      for (const s of secrets) {
        const count = logs.split(s.value).length - 1;
        assert.equal(count, s.value === firstKey ? 1 : 0, `${s.what} appears ${count} times in the logs`);
      }
    });
  });
}
