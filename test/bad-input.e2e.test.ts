import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import request, { type Response } from 'supertest';
import { Mode, startApp, TestApp } from './support/app';
import { AttachmentStore } from '#des/platform';

const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/**
 * Hostile and broken input on every kind of endpoint: each is a 4xx with the
 * spec's error body `{message, errors}`, never a 5xx, and refusing it costs
 * no memory that stays.
 */
for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`bad input: always a 4xx with the error body, never a 5xx (${mode} mode)`, () => {
    let t: TestApp;
    let checked = 0;
    const refused = (res: Response, what: string, status?: number) => {
      assert.ok(res.status >= 400 && res.status < 500, `${what}: ${res.status} ${res.text.slice(0, 300)}`);
      if (status) assert.equal(res.status, status, `${what}: ${res.text.slice(0, 300)}`);
      assert.equal(typeof res.body.message, 'string', `${what}: ${res.text.slice(0, 300)}`);
      // `errors` names the fields when there are field errors, and is absent otherwise (never null).
      assert.ok(
        res.body.errors === undefined || (res.body.errors && typeof res.body.errors === 'object'),
        what,
      );
      checked++;
    };
    const json = (method: 'put' | 'post' | 'patch', path: string, body: string) =>
      t.http[method](path).set('Content-Type', 'application/json').send(body);

    before(async () => {
      t = await startApp({ mode });
      assert.equal((await t.http.put('/api/v2/flows/acme').send({ name: 'shop' })).status, 201);
      assert.equal((await t.http.put('/api/v2/trails/acme/shop').send({ name: 't1' })).status, 201);
      assert.equal(
        (await t.http.put('/api/v2/environments/acme').send({ name: 'prod', type: 'K8S' })).status,
        201,
      );
    });
    after(async () => {
      console.log(
        `# bad input (${mode}): ${checked} hostile or broken requests, each a 4xx with the error body`,
      );
      await t.close();
    });

    it('refuses JSON nested deeper than 100 levels on every kind of write, before anything recursive sees it', async () => {
      const writes: ['put' | 'post' | 'patch', string, (deep: string) => string][] = [
        ['put', '/api/v2/flows/acme', (d) => `{"name":"shop","template":${d}}`],
        ['put', '/api/v2/trails/acme/shop', (d) => `{"name":"t1","user_data":${d}}`],
        [
          'post',
          '/api/v2/attestations/acme/shop/trail/t1/generic',
          (d) => `{"attestation_name":"a","user_data":${d}}`,
        ],
        ['put', '/api/v2/environments/acme/prod/report/K8S', (d) => `{"artifacts":${d}}`],
        [
          'post',
          '/api/v2/evaluations/acme',
          (d) => `{"context":${d},"policy":{"files":{"p.rego":"package p"}}}`,
        ],
        ['patch', '/api/v2/tags/acme/flow/shop', (d) => `{"set_tags":${d}}`],
        ['post', '/api/v2/custom-attestation-types/acme', (d) => `{"name":"deep","schema":${d}}`],
      ];
      for (const [method, path, body] of writes) {
        for (const deep of [deepObject(101), deepArray(101), deepObject(100_000), deepArray(100_000)]) {
          const res = await json(method, path, body(deep));
          refused(res, `${method} ${path} nested ${deep.length / 2} deep`, 400);
          assert.deepEqual(res.body.errors, { body: 'JSON nested deeper than 100 levels' });
        }
      }
      // Through multipart too (the Kosli CLI's data_json part).
      const multipart = await t.http
        .post('/api/v2/attestations/acme/shop/trail/t1/generic')
        .field('data_json', `{"attestation_name":"a","user_data":${deepObject(50_000)}}`);
      refused(multipart, 'data_json nested 50,000 deep', 400);
      assert.deepEqual(multipart.body.errors, { data_json: 'JSON nested deeper than 100 levels' });
      // 100 levels are fine.
      const ok = await json('put', '/api/v2/trails/acme/shop', `{"name":"t1","user_data":${deepObject(99)}}`);
      assert.ok(ok.status < 300, ok.text);
    });

    it('answers broken JSON, wrong content types and bare values 400', async () => {
      for (const body of ['{"name":', '{"name":"x"} trailing', '{name:"x"}', '"text"', '42', 'true']) {
        refused(await json('put', '/api/v2/flows/acme', body), `JSON ${JSON.stringify(body)}`, 400);
      }
      for (const type of [
        'text/plain',
        'application/xml',
        'application/x-www-form-urlencoded',
        'application/octet-stream',
      ]) {
        const res = await t.http.put('/api/v2/flows/acme').set('Content-Type', type).send('name=x');
        refused(res, `content type ${type}`);
      }
    });

    it('refuses names with control characters, separators, traversal or other scripts, in bodies and in paths', async () => {
      const names = [
        'a\u0000b',
        'a\nb',
        'a/b',
        '..',
        '../etc',
        'a b',
        '\u202eevil',
        'é',
        'x'.repeat(10_000),
        '',
      ];
      for (const name of names) {
        refused(
          await t.http.put('/api/v2/flows/acme').send({ name }),
          `flow named ${JSON.stringify(name.slice(0, 20))}`,
          400,
        );
        refused(
          await t.http.put('/api/v2/environments/acme').send({ name, type: 'K8S' }),
          `environment ${JSON.stringify(name.slice(0, 20))}`,
          400,
        );
      }
      for (const segment of ['%00', '..%2F..%2Fetc', '%E2%80%AEevil', 'a%0Ab']) {
        refused(await t.http.get(`/api/v2/flows/acme/${segment}`), `GET flow ${segment}`);
        refused(
          await t.http.put(`/api/v2/environments/acme/${segment}/report/K8S`).send({ artifacts: [] }),
          `report to ${segment}`,
        );
      }
    });

    it('answers huge query values, and a request line or headers over the limit, with the error body', async () => {
      for (const query of [
        `at=${'9'.repeat(5_000)}`,
        `page=${'1'.repeat(400)}`,
        `per_page=1e309`,
        `at=-1`,
        `at=NaN`,
      ]) {
        refused(await t.http.get(`/api/v2/flows/acme?${query}`), `query ${query.slice(0, 30)}`, 400);
      }
      refused(await t.http.get(`/api/v2/flows/acme?at=${'9'.repeat(20_000)}`), 'a 20 KB query', 431);
      refused(
        await t.http.get('/api/v2/flows/acme').set('X-Padding', 'x'.repeat(20_000)),
        'a 20 KB header',
        431,
      );
      // A long value under the limit is only a filter that matches nothing.
      const long = await t.http.get(`/api/v2/trails/acme?flow=${'f'.repeat(6_000)}`);
      assert.equal(long.status, 200, long.text.slice(0, 300));
    });

    it('keeps an attachment by its SHA-256 only: a file name that climbs out of the data directory writes nowhere', async () => {
      const escape = `des-escape-${process.pid}-${Date.now()}`;
      const res = await t.http
        .post('/api/v2/attestations/acme/shop/trail/t1/generic')
        .field('data_json', JSON.stringify({ attestation_name: 'escape' }))
        .attach(
          'attachment_file',
          Buffer.from('not yours'),
          `../../../../../../${tmpdir().slice(1)}/${escape}`,
        );
      assert.equal(res.status, 201, res.text);
      assert.equal(existsSync(join(tmpdir(), escape)), false);
      const trail = await t.http.get('/api/v2/trails/acme/shop/t1');
      const [attachment] = trail.body.attestations.escape.attachments as {
        filename: string;
        sha256: string;
      }[];
      assert.match(attachment.sha256, /^[0-9a-f]{64}$/);
      assert.deepEqual(await t.app.get(AttachmentStore).get(attachment.sha256), Buffer.from('not yours'));
      if (mode === 'embedded') {
        // On disk under its digest alone (server mode keeps it in GridFS, by the same name).
        const kept = join(t.config.dataDir, 'attachments', attachment.sha256.slice(0, 2));
        assert.deepEqual(readdirSync(kept), [attachment.sha256]);
      }
    });

    it('refuses bodies over their limits early: the memory it took is given back', async () => {
      const gc = (globalThis as { gc?: () => void }).gc;
      assert.ok(gc, 'the tests run with --expose-gc');
      // What the process holds after a collection: its heap and the buffers outside it. RSS is not
      // the measure: the allocator keeps freed pages (more so with the worker threads' arenas), so it
      // swung by ±300 MB between runs with nothing retained.
      const rss = () => {
        gc!();
        const { heapUsed, external } = process.memoryUsage();
        return (heapUsed + external) / 1024 / 1024;
      };
      // A connection of its own each: a refused upload's unread rest must not meet the next request.
      const fresh = () => ({ put: (path: string) => request(t.server).put(path).set(t.auth) });
      // Strings: superagent would send a Buffer given with a JSON content type as the Buffer's own JSON.
      const report = `{"artifacts":"${'a'.repeat(11 * 1024 * 1024)}"}`;
      const deep = `{"artifacts":${deepArray(2_000_000)}}`;
      const round = async () => {
        refused(
          await fresh()
            .put('/api/v2/environments/acme/prod/report/K8S')
            .set('Content-Type', 'application/json')
            .send(report),
          'an 11 MB JSON body',
          413,
        );
        refused(
          await fresh()
            .put('/api/v2/environments/acme/prod/report/K8S')
            .set('Content-Type', 'application/json')
            .send(deep),
          'a 4 MB body nested 2,000,000 deep',
          400,
        );
      };
      // Warm first (buffers, the allocator), then: what 20 more rounds leave behind.
      for (let i = 0; i < 5; i++) await round();
      const before = rss();
      for (let i = 0; i < 20; i++) await round();
      const grown = rss() - before;
      console.log(
        `# bad input (${mode}): 40 oversized or too-deep bodies after 10 to warm up, heap and buffers ${before.toFixed(0)} MB → +${grown.toFixed(0)} MB`,
      );
      assert.ok(grown < 64, `heap and buffers grew ${grown.toFixed(0)} MB`);
    });
  });
}
