import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { EVENT_STORE, READ_STORE } from '#des/platform';
import type { EventStore } from '#des/event-store';
import type { ReadStore } from '#des/read-store';
import { hashApiKey, OrganizationBootstrap } from '#des/accounts';
import { Mode, startApp, TestApp } from './support/app';
import { FixtureFeatureModule } from './support/fixture-feature';
import { eventually } from './support/processes';
import { routesOf } from './support/routes';

const UNAUTHORIZED = { message: 'Invalid or missing API key' };
const FORBIDDEN = { message: "You don't have permission to access this resource" };
const basic = (key: string, password = '') => `Basic ${Buffer.from(`${key}:${password}`).toString('base64')}`;

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`accounts and keys (${mode} mode)`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp({ mode, features: [FixtureFeatureModule], maxUsers: 20 });
    });
    after(async () => t.close());

    const createAccount = (name: string, privilege: string, description = `${privilege} account`) =>
      t.http.post('/api/v2/service-accounts/acme').send({ name, description, privilege });
    const createKey = (account: string, body: Record<string, unknown> = {}) =>
      t.http.post(`/api/v2/service-accounts/acme/${account}/api-keys`).send(body);
    const keyFor = async (account: string, privilege: string) => {
      assert.equal((await createAccount(account, privilege)).status, 201);
      const res = await createKey(account, { description: `${account} key` });
      assert.equal(res.status, 201);
      return res.body.key as string;
    };

    it('creates a service account with every field of the spec', async () => {
      const before = Date.now() / 1000;
      const res = await createAccount('ci-pipeline', 'member', 'Builds and attests');
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body).sort(), [
        'created_at',
        'creating_user_id',
        'description',
        'display_name',
        'for_webhook',
        'name',
        'privilege',
      ]);
      assert.deepEqual(
        { ...res.body, created_at: undefined },
        {
          name: 'ci-pipeline',
          display_name: 'ci-pipeline',
          privilege: 'member',
          description: 'Builds and attests',
          creating_user_id: 'admin',
          created_at: undefined,
          for_webhook: false,
        },
      );
      assert.ok(res.body.created_at >= before - 1 && res.body.created_at <= Date.now() / 1000 + 1);
      const one = await t.http.get('/api/v2/service-accounts/acme/ci-pipeline');
      assert.deepEqual(one.body, res.body);
      const list = await t.http.get('/api/v2/service-accounts/acme');
      assert.deepEqual(
        list.body.map((a: { name: string }) => a.name),
        ['admin', 'ci-pipeline'],
      );
    });

    it('refuses invalid service accounts, naming each field', async () => {
      const cases: [Record<string, unknown>, string[]][] = [
        [{ name: 'bad name!', privilege: 'member' }, ['name']],
        [{ name: 'x'.repeat(65), privilege: 'member' }, ['name']],
        [{ name: 'ok', privilege: 'owner' }, ['privilege']],
        [{ privilege: 'member' }, ['name']],
        [{ name: 'ok', privilege: 'member', role: 'x' }, ['role']],
        [{ name: 'ok', description: 7, privilege: 'reader' }, ['description']],
      ];
      for (const [body, fields] of cases) {
        const res = await t.http.post('/api/v2/service-accounts/acme').send(body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.message, 'Input payload validation failed');
        assert.deepEqual(Object.keys(res.body.errors).sort(), fields, JSON.stringify(body));
      }
    });

    it('answers 409 for an existing account and for a full organization', async () => {
      const again = await createAccount('ci-pipeline', 'reader');
      assert.deepEqual([again.status, again.body], [400, { message: 'Service account already exists' }]);
      const small = await t.app.get(OrganizationBootstrap).createOrganization('small', [], 2);
      const smallHttp = request.agent(t.server).set('Authorization', `Bearer ${small.key}`);
      const ok = await smallHttp
        .post('/api/v2/service-accounts/small')
        .send({ name: 'one', privilege: 'reader' });
      assert.equal(ok.status, 201);
      const full = await smallHttp
        .post('/api/v2/service-accounts/small')
        .send({ name: 'two', privilege: 'reader' });
      assert.deepEqual(
        [full.status, full.body],
        [400, { message: "Maximum number of users has been reached for 'small'" }],
      );
    });

    it('answers 404 for an unknown service account', async () => {
      const expected = { message: 'Service account not found' };
      for (const res of [
        await t.http.get('/api/v2/service-accounts/acme/nobody'),
        await t.http.get('/api/v2/service-accounts/acme/nobody/api-keys'),
        await createKey('nobody', { description: 'x' }),
        await t.http.delete('/api/v2/service-accounts/acme/nobody/api-keys/some-id'),
      ]) {
        assert.deepEqual([res.status, res.body], [404, expected]);
      }
    });

    it('mints a key shown once, usable with Bearer and Basic, listed without its secret', async () => {
      const res = await createKey('ci-pipeline', { description: 'GitHub Actions' });
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body).sort(), [
        'created_at',
        'description',
        'expires_at',
        'id',
        'key',
      ]);
      assert.equal(res.body.expires_at, 0);
      assert.equal(res.body.description, 'GitHub Actions');
      const key = res.body.key as string;
      assert.match(key, /^des_[A-Za-z0-9_-]{32}$/, 'prefix and 192 random bits');
      for (const header of [`Bearer ${key}`, basic(key), basic(key, 'ignored-password')]) {
        const ok = await request(t.server).get('/api/v2/service-accounts/acme').set('Authorization', header);
        assert.equal(ok.status, 200, header);
      }
      const list = await t.http.get('/api/v2/service-accounts/acme/ci-pipeline/api-keys');
      assert.equal(list.status, 200);
      const listed = list.body.find((k: { id: string }) => k.id === res.body.id);
      assert.deepEqual(Object.keys(listed).sort(), [
        'created_at',
        'description',
        'expires_at',
        'id',
        'last_used_at',
      ]);
      assert.ok(!JSON.stringify(list.body).includes(key));
    });

    it('refuses an expiry in the past with the spec message', async () => {
      const past = await createKey('ci-pipeline', { description: 'old', expires_at: Date.now() / 1000 - 10 });
      assert.equal(past.status, 400);
      assert.equal(past.body.message, 'expires_at cannot be in the past');
      assert.ok(past.body.errors.expires_at);
      const negative = await createKey('ci-pipeline', { expires_at: -5 });
      assert.deepEqual([negative.status, negative.body.message], [400, 'Input payload validation failed']);
      const text = await createKey('ci-pipeline', { expires_at: 'tomorrow' });
      assert.deepEqual([text.status, Object.keys(text.body.errors)], [400, ['expires_at']]);
    });

    it('refuses a key the instant it expires, and stops listing it', async () => {
      const expiresAt = Date.now() / 1000 + 1;
      const res = await createKey('ci-pipeline', { description: 'short-lived', expires_at: expiresAt });
      assert.equal(res.status, 201);
      assert.equal(res.body.expires_at, expiresAt);
      const use = () =>
        request(t.server).get('/api/v2/service-accounts/acme').set('Authorization', `Bearer ${res.body.key}`);
      // However slow this machine is: every answer before the instant is 200, every one after it 401.
      const deadline = Date.now() + 30_000;
      for (;;) {
        const sent = Date.now() / 1000;
        const answer = await use();
        const received = Date.now() / 1000;
        if (answer.status === 200) {
          assert.ok(sent < expiresAt, `accepted at ${sent}, after it expired at ${expiresAt}`);
        } else {
          assert.deepEqual([answer.status, answer.body], [401, UNAUTHORIZED]);
          assert.ok(received >= expiresAt, `refused at ${received}, before it expired at ${expiresAt}`);
          break;
        }
        assert.ok(Date.now() < deadline, 'the key never expired');
        await new Promise((r) => setImmediate(r));
      }
      const list = await t.http.get('/api/v2/service-accounts/acme/ci-pipeline/api-keys');
      assert.ok(!list.body.some((k: { id: string }) => k.id === res.body.id));
    });

    it('accepts a key until its expiry', async () => {
      const expiresAt = Date.now() / 1000 + 3600;
      const res = await createKey('ci-pipeline', { description: 'an hour', expires_at: expiresAt });
      const use = await request(t.server)
        .get('/api/v2/service-accounts/acme')
        .set('Authorization', `Bearer ${res.body.key}`);
      assert.equal(use.status, 200);
      const list = await t.http.get('/api/v2/service-accounts/acme/ci-pipeline/api-keys');
      assert.equal(list.body.find((k: { id: string }) => k.id === res.body.id).expires_at, expiresAt);
    });

    it('revokes a key: refused at once, unlisted; revoking again is fine; an unknown id is 404', async () => {
      const res = await createKey('ci-pipeline', { description: 'to revoke' });
      const use = () =>
        request(t.server).get('/api/v2/service-accounts/acme').set('Authorization', `Bearer ${res.body.key}`);
      assert.equal((await use()).status, 200);
      const revoke = await t.http.delete(`/api/v2/service-accounts/acme/ci-pipeline/api-keys/${res.body.id}`);
      assert.equal(revoke.status, 200);
      assert.match(revoke.headers['content-type'], /^application\/json/);
      assert.equal(revoke.text, '"API key revoked"');
      assert.deepEqual([(await use()).status, (await use()).body], [401, UNAUTHORIZED]);
      const list = await t.http.get('/api/v2/service-accounts/acme/ci-pipeline/api-keys');
      assert.ok(!list.body.some((k: { id: string }) => k.id === res.body.id));
      assert.equal(
        (await t.http.delete(`/api/v2/service-accounts/acme/ci-pipeline/api-keys/${res.body.id}`)).status,
        200,
      );
      const unknown = await t.http.delete('/api/v2/service-accounts/acme/ci-pipeline/api-keys/no-such-key');
      assert.deepEqual([unknown.status, unknown.body], [404, { message: 'API key not found' }]);
    });

    it('answers 401 with a challenge for missing, malformed, unknown and foreign-scheme credentials', async () => {
      const headers: (string | undefined)[] = [
        undefined,
        'Bearer',
        'Bearer des_unknownkeyunknownkeyunknownkey00',
        'Token des_abc',
        'Basic !!!',
        basic(''),
        `Bearer ${t.key} extra`,
      ];
      for (const header of headers) {
        const req = request(t.server).get('/api/v2/service-accounts/acme');
        const res = header === undefined ? await req : await req.set('Authorization', header);
        assert.deepEqual([res.status, res.body], [401, UNAUTHORIZED], String(header));
        assert.match(res.headers['www-authenticate'], /Bearer realm=.*Basic realm=/);
      }
    });

    it('enforces privileges: reader GET only, snapshotter below member, member below admin', async () => {
      const as = (key: string) => request.agent(t.server).set('Authorization', `Bearer ${key}`);
      const reader = as(await keyFor('auditor', 'reader'));
      const snapshotter = as(await keyFor('cluster-agent', 'snapshotter'));
      const member = as(await keyFor('builder', 'member'));

      assert.equal((await reader.get('/api/v2/service-accounts/acme')).status, 200);
      assert.equal((await reader.get('/api/v2/fixture-notes/acme/none')).status, 404, 'reader reads');
      for (const client of [reader, snapshotter]) {
        const res = await client.put('/api/v2/fixture-notes/acme/n').send({ text: 'x' });
        assert.deepEqual([res.status, res.body], [403, FORBIDDEN]);
      }
      assert.equal((await member.put('/api/v2/fixture-notes/acme/n').send({ text: 'x' })).status, 201);
      for (const client of [reader, snapshotter, member]) {
        const res = await client
          .post('/api/v2/service-accounts/acme')
          .send({ name: 'sneaky', privilege: 'admin' });
        assert.deepEqual([res.status, res.body], [403, FORBIDDEN]);
        const key = await client.post('/api/v2/service-accounts/acme/admin/api-keys').send({});
        assert.deepEqual([key.status, key.body], [403, FORBIDDEN]);
      }
    });

    it('moves a key’s last_used_at after use', async () => {
      const res = await createKey('ci-pipeline', { description: 'tracked' });
      const listed = async () =>
        (await t.http.get('/api/v2/service-accounts/acme/ci-pipeline/api-keys')).body.find(
          (k: { id: string }) => k.id === res.body.id,
        );
      assert.equal((await listed()).last_used_at, null);
      await request(t.server)
        .get('/api/v2/service-accounts/acme')
        .set('Authorization', `Bearer ${res.body.key}`);
      const used = await eventually(listed, (k) => typeof k.last_used_at === 'number', 5000);
      assert.ok(used.last_used_at >= res.body.created_at);
    });

    it('keeps no plaintext key in the read models or the event log', async () => {
      const keys = [t.key];
      for (let i = 0; i < 3; i++)
        keys.push((await createKey('ci-pipeline', { description: `scan ${i}` })).body.key);
      const reads = t.app.get<ReadStore>(READ_STORE);
      let readModels = '';
      for (const name of await reads.listCollections())
        readModels += JSON.stringify(await reads.collection(name).find({}));
      const events = t.app.get<EventStore>(EVENT_STORE);
      let log = '';
      for (let after = 0; ;) {
        const batch = await events.readAll(after, 1000);
        if (batch.length === 0) break;
        log += JSON.stringify(batch);
        after = batch[batch.length - 1].position;
      }
      for (const key of keys) {
        assert.ok(!readModels.includes(key), 'read models hold no key');
        assert.ok(!log.includes(key), 'the log holds no key');
        assert.ok(readModels.includes(hashApiKey(key)), 'the hash is what is kept');
        assert.ok(!readModels.includes(key.slice(4)), 'not even without its prefix');
      }
    });
  });
}

describe('authorization map', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp({ mode: 'embedded', features: [FixtureFeatureModule] });
    await t.app.get(OrganizationBootstrap).createOrganization('other', [], 5);
  });
  after(async () => t.close());

  it('gives every route a privilege, or marks it public; writes never need only `reader`', () => {
    const routes = routesOf(t.app);
    assert.ok(routes.length >= 8, `found ${routes.length} routes`);
    for (const r of routes) {
      assert.ok(
        r.isPublic || r.privilege,
        `${r.method} ${r.path} (${r.controller}.${r.handler}) declares no privilege`,
      );
      if (r.method !== 'GET' && !r.isPublic) {
        assert.notEqual(r.privilege, 'reader', `${r.method} ${r.path} lets readers write`);
      }
    }
    const publicRoutes = routes.filter((r) => r.isPublic).map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(publicRoutes.sort(), [
      'GET /health/live',
      'GET /health/ready',
      'GET /metrics',
      'GET /ready',
    ]);
  });

  it('answers 403 to a key of another organization on every route that names one', async () => {
    const scoped = routesOf(t.app).filter((r) => r.path.includes(':org'));
    assert.ok(scoped.length >= 6);
    for (const route of scoped) {
      for (const org of ['other', 'no-such-org']) {
        // An attestation type there is: a path with another names only the read of an attestation (405).
        const path = route.path
          .replace(':org', org)
          .replace(':type', 'generic')
          .replace(/:[a-z_]+/g, 'x');
        const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
        const res = await t.http[method](path).send({});
        assert.deepEqual([res.status, res.body], [403, FORBIDDEN], `${route.method} ${path}`);
      }
    }
  });
});
