import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Writable } from 'node:stream';
import pino from 'pino';
import { EVENT_STORE } from '#des/platform';
import type { EventStore } from '#des/event-store';
import { Mode, startApp, TestApp } from './support/app';
import { FixtureFeatureModule } from './support/fixture-feature';

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`platform over HTTP (${mode} mode)`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp({ mode, features: [FixtureFeatureModule] });
    });
    after(async () => t.close());

    it('runs on the engines of its mode', () => {
      assert.equal(t.config.mode, mode);
      assert.equal(t.config.readStore.kind, mode === 'server' ? 'mongodb' : 'memory');
      assert.equal(t.config.jobs.kind, mode === 'server' ? 'bullmq' : 'in-process');
    });

    it('answers a write only once the read models reflect it (read-your-writes)', async () => {
      for (let i = 1; i <= 15; i++) {
        const put = await t.http.put('/api/v2/fixture-notes/acme/n1').send({ text: `v${i}` });
        assert.equal(put.status, 201);
        const get = await t.http.get('/api/v2/fixture-notes/acme/n1');
        assert.equal(get.status, 200);
        assert.deepEqual(get.body, { events: i, last_type: 'note_written', revision: i - 1 });
      }
      const unchanged = await t.http.put('/api/v2/fixture-notes/acme/n1').send({ text: 'v15' });
      assert.equal(unchanged.status, 200, 'a command that changes nothing appends nothing');
    });

    it('retries concurrent writes to one stream on conflicts and loses none', async () => {
      const puts = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          t.http.put('/api/v2/fixture-notes/acme/busy').send({ text: `writer-${i}` }),
        ),
      );
      assert.deepEqual(
        puts.map((p) => p.status),
        Array(8).fill(201),
      );
      const events = t.app.get<EventStore>(EVENT_STORE);
      const stream = await events.readStream('note-acme/busy');
      assert.equal(stream.length, 8);
      assert.deepEqual(
        stream.map((e) => e.revision),
        [0, 1, 2, 3, 4, 5, 6, 7],
      );
      assert.equal((await t.http.get('/api/v2/fixture-notes/acme/busy')).body.events, 8);
    });

    it('answers validation failures with the spec body, naming each field', async () => {
      const res = await t.http.put('/api/v2/fixture-notes/acme/n2').send({ text: 7, colour: 'red' });
      assert.equal(res.status, 400);
      assert.equal(res.body.message, 'Input payload validation failed');
      assert.deepEqual(Object.keys(res.body.errors).sort(), ['colour', 'text']);
      assert.match(res.body.errors.colour, /should not exist/);
      assert.match(res.body.errors.text, /string/);
    });

    it('answers malformed JSON with 400 and the spec body', async () => {
      const res = await t.http
        .put('/api/v2/fixture-notes/acme/n3')
        .set('Content-Type', 'application/json')
        .send('{"text": ');
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, {
        message: 'Input payload validation failed',
        errors: { body: 'Malformed JSON' },
      });
    });

    it('refuses a body over the limit with 413', async () => {
      const res = await t.http
        .put('/api/v2/fixture-notes/acme/n4')
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ text: 'x'.repeat(11 * 1024 * 1024) }));
      assert.equal(res.status, 413);
      assert.deepEqual(res.body, { message: 'Request body exceeds the 10MB limit' });
    });

    it('answers unknown routes 404 `Not found` with a request id', async () => {
      const res = await t.http.get('/api/v2/no/such/route');
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { message: 'Not found' });
      assert.match(res.headers['x-request-id'], /^[0-9a-f-]{36}$/);
      const outside = await t.http.post('/elsewhere');
      assert.deepEqual([outside.status, outside.body.message], [404, 'Not found']);
    });

    it('answers a method the path does not take 405 with Allow, whatever the body', async () => {
      const res = await t.http
        .delete('/api/v2/fixture-notes/acme/allow-n1')
        .set('Content-Type', 'application/json')
        .send('""');
      assert.deepEqual([res.status, res.body], [405, { message: 'Method not allowed' }]);
      assert.equal(res.headers.allow, 'GET, PUT, HEAD');
      const trace = await t.http.patch('/api/v2/fixture-notes/acme/allow-n1').send({ text: 'x' });
      assert.equal(trace.status, 405);
      // An unknown path stays 404; a path and method it takes are served.
      assert.equal((await t.http.delete('/api/v2/no/such/route')).status, 404);
      assert.ok((await t.http.put('/api/v2/fixture-notes/acme/allow-n1').send({ text: 'x' })).status < 300);
    });

    it('echoes a sane caller request id and replaces an unsafe one', async () => {
      const ok = await t.http.get('/health/live').set('X-Request-Id', 'ci-run-42.step:7');
      assert.equal(ok.headers['x-request-id'], 'ci-run-42.step:7');
      const bad = await t.http.get('/health/live').set('X-Request-Id', 'a b<script>');
      assert.notEqual(bad.headers['x-request-id'], 'a b<script>');
    });

    it('never leaks internals in a 500', async () => {
      const res = await t.http.get('/api/v2/fixture-notes/boom/s3cr3t/now');
      assert.equal(res.status, 500);
      assert.deepEqual(res.body, { message: 'Internal server error' });
      assert.ok(!JSON.stringify(res.body).includes('s3cr3t'));
      assert.ok(res.headers['x-request-id']);
    });

    it('serves liveness, readiness (each engine) and metrics, at the root and under /api/v2', async () => {
      for (const base of ['', '/api/v2']) {
        assert.deepEqual((await t.http.get(`${base}/health/live`)).body, { status: 'ok' });
        const ready = await t.http.get(`${base}/health/ready`);
        assert.equal(ready.status, 200);
        assert.deepEqual(Object.keys(ready.body.details).sort(), [
          `event_store (sqlite)`,
          `jobs (${mode === 'server' ? 'bullmq' : 'in-process'})`,
          'projections',
          `read_store (${mode === 'server' ? 'mongodb' : 'memory'})`,
        ]);
        const metrics = await t.http.get(`${base}/metrics`);
        assert.equal(metrics.status, 200);
        assert.match(metrics.text, /des_events_appended_total\{type="note_written"\} \d+/);
        assert.match(metrics.text, /des_http_request_duration_seconds_bucket/);
      }
    });

    it('serves its OpenAPI 3.1 document generated from the DTOs', async () => {
      const res = await t.http.get('/api/v2/openapi.json');
      assert.equal(res.status, 200);
      assert.equal(res.body.openapi, '3.1.0');
      assert.ok(res.body.paths['/api/v2/fixture-notes/{org}/{id}'].put);
      assert.deepEqual(res.body.components.schemas.NoteDto.required, ['text']);
      // The validation pipe's rules are in the schema: unknown fields refused, errors declared with their body.
      assert.equal(res.body.components.schemas.NoteDto.additionalProperties, false);
      const put = res.body.paths['/api/v2/fixture-notes/{org}/{id}'].put;
      for (const status of ['400', '401', '403', '404', '409', '413', '503']) {
        assert.deepEqual(put.responses[status].content['application/json'].schema, {
          $ref: '#/components/schemas/ErrorBody',
        });
      }
      assert.ok(!res.body.paths['/health/live'], 'probes are not part of the API contract');
    });
  });
}

describe('request logging and answers (embedded mode)', () => {
  const lines: Record<string, unknown>[] = [];
  let t: TestApp;
  before(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line));
        done();
      },
    });
    t = await startApp({
      mode: 'embedded',
      features: [FixtureFeatureModule],
      logger: pino({ level: 'info' }, sink),
    });
  });
  after(async () => t.close());

  it('writes one completion line per request, naming its id, route, status and organization, never its key', async () => {
    lines.length = 0;
    await t.http
      .put('/api/v2/fixture-notes/acme/logged')
      .set('X-Request-Id', 'trace-42')
      .send({ text: 'x' })
      .expect(201);
    await t.http.get('/health/live').expect(200);
    await t.http.get('/metrics').expect(200);
    const completions = lines.filter((l) => l.msg === 'request completed');
    assert.equal(completions.length, 1, 'probes and metrics write no line');
    const [line] = completions;
    assert.deepEqual(line.req, {
      id: 'trace-42',
      method: 'PUT',
      url: '/api/v2/fixture-notes/acme/logged',
      remoteAddress: (line.req as { remoteAddress: string }).remoteAddress,
    });
    assert.deepEqual(line.res, { statusCode: 201 });
    assert.equal(line.org, 'acme');
    assert.equal(typeof line.responseTime, 'number');
    assert.ok(!JSON.stringify(lines).includes(t.key), 'no line holds the API key');
  });

  it('answers HEAD of a read with its headers and no body', async () => {
    const get = await t.http.get('/api/v2/fixture-notes/acme/logged').expect(200);
    const head = await t.http.head('/api/v2/fixture-notes/acme/logged').expect(200);
    assert.equal(head.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(head.headers['content-length'], String(Buffer.byteLength(JSON.stringify(get.body))));
    assert.equal(head.text, undefined);
  });

  it("serves requests born with Express's prototypes, so its per-request setPrototypeOf changes nothing (ADR 0036)", async () => {
    const express = t.app.getHttpAdapter().getInstance() as { request: object; response: object };
    const seen: boolean[] = [];
    // Runs before Express's own listener: the objects as Node's server made them.
    const spy = (req: object, res: object) =>
      seen.push(Object.getPrototypeOf(req) === express.request, Object.getPrototypeOf(res) === express.response);
    t.server.prependListener('request', spy);
    try {
      await t.http.get('/api/v2/fixture-notes/acme/logged').expect(200);
      await t.http.put('/api/v2/fixture-notes/acme/born').send({ text: 'y' }).expect(201);
    } finally {
      t.server.off('request', spy);
    }
    assert.deepEqual(seen, [true, true, true, true]);
  });
});
