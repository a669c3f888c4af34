import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort } from './support/engines';
import { type Mode, modeEnv } from './support/app';
import { type Child, startProcess, untilLive } from './support/processes';

/**
 * SIGTERM in the middle of writes, as an orchestrator sends it: every
 * request is answered (2xx, or 503 once the stop has begun), none is reset,
 * and everything acknowledged is there after a restart. The API runs as a
 * real process (`--role=all` embedded; `--role=api` beside a projector and
 * a worker process in server mode), and so do the projector and worker,
 * which must stop cleanly too.
 */
const MODES: { mode: Mode; role: 'all' | 'api' }[] = [
  { mode: 'embedded', role: 'all' },
  { mode: 'server', role: 'api' },
];

for (const { mode, role } of MODES) {
  describe(`graceful shutdown (${mode} mode, API role ${role})`, () => {
    const children: Child[] = [];
    const start = (app: 'api' | 'projector' | 'worker', env: NodeJS.ProcessEnv, args: string[] = []) => {
      const child = startProcess(app, env, args);
      children.push(child);
      return child;
    };
    after(async () => {
      for (const c of children) await c.stop();
    });

    it('answers every request under SIGTERM (2xx or 503, none reset) and keeps every acknowledged write', async (t) => {
      const port = await freePort();
      const env = await modeEnv(mode, { PORT: String(port), LOG_LEVEL: 'info', DES_OPS_PORT: '0' });
      const base = `http://127.0.0.1:${port}`;
      const background =
        mode === 'server'
          ? [
              start('projector', { ...env, DES_OPS_PORT: String(await freePort()) }),
              start('worker', { ...env, DES_OPS_PORT: String(await freePort()) }),
            ]
          : [];
      let api = start('api', env, [`--role=${role}`]);
      await untilLive(api, base);
      const key = readFileSync(join(env.DES_DATA_DIR!, 'initial-admin-key'), 'utf8').trim();
      const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
      assert.equal(
        (await fetch(`${base}/api/v2/flows/demo`, { method: 'PUT', headers, body: '{"name":"drain"}' }))
          .status,
        201,
      );

      // A request whose body is still coming when the signal arrives: it is in flight and must finish.
      const slow = startSlowTrail(port, headers, 'slow');
      await slow.headersSent;
      // The server has read the slow request's headers once it has answered a request sent after them.
      assert.equal((await fetch(`${base}/health/live`)).status, 200);

      // 40 writes at once; the signal comes when the first is answered.
      const outcomes: (number | string)[] = [];
      const writes = Array.from({ length: 40 }, (_, i) =>
        fetch(`${base}/api/v2/trails/demo/drain`, {
          method: 'PUT',
          headers,
          body: JSON.stringify({ name: `t-${i}` }),
        }).then(
          async (res) => {
            await res.arrayBuffer();
            outcomes[i] = res.status;
            return res;
          },
          (error: Error & { cause?: { code?: string } }) => {
            outcomes[i] = `${error.message}: ${error.cause?.code ?? String(error.cause)}`;
          },
        ),
      );
      await Promise.race(writes);
      api.process.kill('SIGTERM');
      await Promise.all(writes);

      // Once stopping, a new request is refused with 503, Retry-After and Connection: close (the listener is
      // still open while the slow request is in flight), and readiness fails while liveness holds.
      const refused = await rawGet(port, '/api/v2/flows/demo', headers);
      assert.equal(refused.statusCode, 503, refused.body);
      assert.equal(refused.headers['retry-after'], '5');
      assert.equal(refused.headers.connection, 'close');
      assert.equal(JSON.parse(refused.body).message, 'Service shutting down; retry the request.');
      const ready = await rawGet(port, '/health/ready', {});
      assert.equal(ready.statusCode, 503);
      assert.deepEqual(JSON.parse(ready.body).errors, { shutdown: 'the process is stopping' });
      assert.equal((await rawGet(port, '/health/live', {})).statusCode, 200);

      slow.finish();
      const slowAnswer = await slow.answer;
      assert.equal(slowAnswer.statusCode, 201, `the request in flight completes: ${slowAnswer.body}`);
      assert.equal(
        slowAnswer.headers.connection,
        'close',
        'an answer given while stopping closes its connection',
      );

      const exit = await api.exited;
      assert.deepEqual(exit, { code: 0, signal: null }, api.output().slice(-3000));
      const count = (status: number) => outcomes.filter((o) => o === status).length;
      t.diagnostic(`40 writes under SIGTERM: ${count(201)} answered 201, ${count(503)} answered 503`);
      for (const [i, outcome] of outcomes.entries())
        assert.ok(outcome === 201 || outcome === 503, `write ${i} was answered, not ${outcome}`);
      const log = api.output();
      assert.match(
        log,
        /SIGTERM: stopping; readiness fails and new requests answer 503; \d+ request\(s\) in flight/,
      );
      assert.match(log, /HTTP server closed: requests in flight answered/);
      assert.match(log, /event store closed/);
      assert.match(log, /"msg":"stopped"/);
      if (role === 'all') {
        assert.match(log, /projector stopped: its batch finished and checkpointed/);
        assert.match(log, /read models saved/);
      }

      // After a restart, every acknowledged write is there, and nothing refused is.
      api = start('api', env, [`--role=${role}`]);
      await untilLive(api, base);
      for (const [i, outcome] of outcomes.entries()) {
        const res = await fetch(`${base}/api/v2/trails/demo/drain/t-${i}`, { headers });
        assert.equal(res.status, outcome === 201 ? 200 : 404, `trail t-${i} (answered ${outcome})`);
      }
      assert.equal((await fetch(`${base}/api/v2/trails/demo/drain/slow`, { headers })).status, 200);

      // The projector and the worker stop in order too, each step logged, exit code 0.
      for (const child of background) {
        child.process.kill('SIGTERM');
        assert.deepEqual(await child.exited, { code: 0, signal: null }, child.output().slice(-3000));
        assert.match(child.output(), /readiness fails from now on/);
        assert.match(child.output(), /event store closed/);
        assert.match(child.output(), /"msg":"stopped"/);
      }
      if (background.length) assert.match(background[0].output(), /projector stopped: its batch finished/);
    });
  });
}

/** A PUT whose body is sent in two parts: the second only when `finish()` is called. */
function startSlowTrail(port: number, headers: Record<string, string>, name: string) {
  const body = JSON.stringify({ name, description: 'sent slowly' });
  let sent!: () => void;
  const headersSent = new Promise<void>((resolve) => (sent = resolve));
  let req!: ClientRequest;
  const answer = new Promise<{ statusCode: number; headers: IncomingMessage['headers']; body: string }>(
    (resolve, reject) => {
      req = httpRequest(
        {
          port,
          host: '127.0.0.1',
          method: 'PUT',
          path: '/api/v2/trails/demo/drain',
          headers: { ...headers, 'Content-Length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ statusCode: res.statusCode!, headers: res.headers, body: text }));
        },
      );
      req.on('error', reject);
      req.flushHeaders();
      req.write(body.slice(0, 5), () => sent());
    },
  );
  return { headersSent, answer, finish: () => req.end(body.slice(5)) };
}

/** A GET on a connection of its own. */
function rawGet(port: number, path: string, headers: Record<string, string>) {
  return new Promise<{ statusCode: number; headers: IncomingMessage['headers']; body: string }>(
    (resolve, reject) => {
      httpRequest({ port, host: '127.0.0.1', path, headers, agent: false }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ statusCode: res.statusCode!, headers: res.headers, body: text }));
      })
        .on('error', reject)
        .end();
    },
  );
}
