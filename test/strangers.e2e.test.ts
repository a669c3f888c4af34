import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Metrics } from '#des/platform';
import { startNeighbourhood, type Neighbourhood } from './support/noisy-neighbour';
import { eventually } from './support/processes';

/**
 * Strangers cost nothing (issue 49, item 1; ADR 0037): the key is checked
 * before a body is read, the server's timeouts close slow and silent
 * connections, connections are capped per address and in all (idle ones
 * reclaimed), JSON bodies in flight are capped per organization and in all,
 * and /metrics names no organization to a caller without its token. Raw
 * sockets (`node:net`) play the slow and idle clients; the victim is
 * organization B, on fresh connections from its own loopback address.
 */

const UNAUTHORIZED = { message: 'Invalid or missing API key' };
const MB = 1_000_000;

/** A raw HTTP/1.1 client on one socket: what it received, and when it closed. */
interface RawClient {
  socket: Socket;
  /** Everything the server sent, once it has closed the connection. */
  closed: Promise<{ text: string; afterMs: number }>;
  isClosed(): boolean;
  /** Resolves as soon as the received text matches. */
  received(pattern: RegExp): Promise<string>;
}

function raw(port: number, localAddress = '127.0.0.1'): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect({ host: '127.0.0.1', port, localAddress });
    let text = '';
    const waiting: { pattern: RegExp; resolve: (t: string) => void }[] = [];
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      for (const w of waiting.splice(0)) {
        if (w.pattern.test(text)) w.resolve(text);
        else waiting.push(w);
      }
    });
    socket.on('error', () => undefined);
    let over = false;
    const closed = new Promise<{ text: string; afterMs: number }>((done) =>
      socket.once('close', () => {
        over = true;
        done({ text, afterMs: Date.now() - started });
      }),
    );
    socket.once('connect', () =>
      resolve({
        socket,
        closed,
        isClosed: () => over,
        received: (pattern) =>
          pattern.test(text)
            ? Promise.resolve(text)
            : new Promise((r) => waiting.push({ pattern, resolve: r })),
      }),
    );
    socket.once('error', reject);
  });
}

/** A GET on a fresh connection (no agent) from `localAddress`. */
function freshGet(
  port: number,
  path: string,
  key: string,
  localAddress: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        localAddress,
        agent: false,
        headers: { Authorization: `Bearer ${key}` },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const portOf = (n: Neighbourhood) => Number(new URL(n.baseUrl).port);
const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
const bodyOf = (text: string): unknown => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
const head = (method: string, path: string, headers: Record<string, string | number>) =>
  `${method} ${path} HTTP/1.1\r\nHost: localhost\r\n` +
  Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('') +
  '\r\n';

describe('strangers cost nothing: keys, caps and bodies in flight', () => {
  const PER_ADDRESS = 40;
  const TOTAL = 260;
  const ORG_BODY_BYTES = 12 * 1024 * 1024;
  const ALL_BODY_BYTES = 18 * 1024 * 1024;
  let n: Neighbourhood;
  let port: number;
  const shed = async (cap: string, closed: string) =>
    (await n.t.app.get(Metrics).connectionsShed.get()).values.find(
      (v) => v.labels.cap === cap && v.labels.closed === closed,
    )?.value ?? 0;

  const bodyBytesInFlight = async () =>
    (await n.t.app.get(Metrics).bodyBytesInFlight.get()).values[0]?.value ?? 0;

  before(async () => {
    n = await startNeighbourhood('embedded', {
      DES_HTTP_MAX_CONNECTIONS_PER_ADDRESS: String(PER_ADDRESS),
      DES_HTTP_MAX_CONNECTIONS: String(TOTAL),
      DES_HTTP_ORG_BODY_BYTES_IN_FLIGHT: String(ORG_BODY_BYTES),
      DES_HTTP_BODY_BYTES_IN_FLIGHT: String(ALL_BODY_BYTES),
    });
    port = portOf(n);
    // B's flow, read by the victim's GETs.
    assert.equal((await n.asB(`/api/v2/flows/${n.orgB}`, putFlow('victim-flow'))).status, 201);
  });
  after(async () => n.close());

  const putFlow = (name: string): RequestInit => ({
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  const victimReads = (address = '127.0.0.2') =>
    freshGet(port, `/api/v2/flows/${n.orgB}/victim-flow`, n.keyB, address);

  it('answers a stranger 401 before reading its body: no key, a malformed one, a key that names no one', async () => {
    for (const authorization of [undefined, 'Bearer', 'Bearer des_no-such-key', 'Basic Og==']) {
      const client = await raw(port);
      const headers: Record<string, string | number> = {
        'Content-Type': 'application/json',
        'Content-Length': 10 * MB,
      };
      if (authorization) headers.Authorization = authorization;
      // Headers and 64 KB of a 10 MB body, then nothing: a parser reading the body would wait for the rest.
      client.socket.write(
        head('PUT', `/api/v2/flows/${n.orgB}`, headers) + '{"name":"' + 'x'.repeat(64 * 1024),
      );
      const { text } = await client.closed;
      assert.equal(statusOf(text), 401, `${authorization}: ${text.slice(0, 200)}`);
      assert.match(text, /\r\nConnection: close\r\n/i);
      assert.match(text, /\r\nWWW-Authenticate: Bearer realm=/i);
      assert.deepEqual(bodyOf(text), UNAUTHORIZED);
    }
    // Probes, the document and the workspace's redirects need no key.
    assert.equal((await fetch(`${n.baseUrl}/health/live`)).status, 200);
    assert.equal((await fetch(`${n.baseUrl}/api/v2/openapi.json`)).status, 200);
    const unknown = await fetch(`${n.baseUrl}/api/v2/no-such-thing`);
    assert.deepEqual([unknown.status, await unknown.json()], [401, UNAUTHORIZED]);
  });

  it("answers 250 strangers' slow 10 MB PUTs at once, and B's GET meanwhile", async () => {
    const strangers = await Promise.all(
      Array.from({ length: 250 }, (_, i) => raw(port, `127.0.${1 + (i % 5)}.${10 + Math.floor(i / 5)}`)),
    );
    const rssBefore = process.memoryUsage().rss;
    for (const s of strangers)
      s.socket.write(
        head('PUT', `/api/v2/flows/${n.orgB}`, {
          'Content-Type': 'application/json',
          'Content-Length': 10 * MB,
        }) + '{"name":"',
      );
    const victim = await victimReads();
    const answers = await Promise.all(strangers.map((s) => s.closed));
    assert.equal(victim.status, 200, victim.body);
    assert.deepEqual(
      [...new Set(answers.map((a) => statusOf(a.text)))],
      [401],
      'every stranger refused before its body',
    );
    console.log(
      `# 250 strangers' 10 MB PUTs: all answered 401; RSS ${Math.round((process.memoryUsage().rss - rssBefore) / 2 ** 20)} MB over before`,
    );
  });

  it("caps one address's connections: idle ones make room, and a fresh connection from it is still answered", async () => {
    const shedBefore = await shed('address', 'idle');
    const held = await Promise.all(Array.from({ length: 300 }, () => raw(port, '127.0.0.1')));
    // The victim on the same address as the 300 idle connections.
    const victim = await victimReads('127.0.0.1');
    assert.equal(victim.status, 200, victim.body);
    const open = await eventually(
      async () => held.filter((c) => !c.isClosed()).length,
      (count) => count <= PER_ADDRESS,
    );
    assert.ok(open <= PER_ADDRESS, `${open} idle connections still open from one address`);
    assert.ok((await shed('address', 'idle')) - shedBefore >= 300 - PER_ADDRESS);
    for (const c of held) c.socket.destroy();
  });

  it('caps connections in all: idle ones from many addresses make room for a victim on a fresh connection', async () => {
    const shedBefore = await shed('total', 'idle');
    // 8 addresses, each within its own cap: 320 idle connections, 60 past the total.
    const held = await Promise.all(
      Array.from({ length: 8 * PER_ADDRESS }, (_, i) => raw(port, `127.0.0.${3 + (i % 8)}`)),
    );
    const victim = await victimReads('127.0.0.2');
    assert.equal(victim.status, 200, victim.body);
    const open = await eventually(
      async () => held.filter((c) => !c.isClosed()).length,
      (count) => count < TOTAL,
    );
    assert.ok(open < TOTAL, `${open} idle connections open, the victim's among ${TOTAL}`);
    assert.ok((await shed('total', 'idle')) - shedBefore >= 8 * PER_ADDRESS - TOTAL + 1);
    for (const c of held) c.socket.destroy();
  });

  it('refuses a connection past the cap when every connection from its address is busy', async () => {
    // Busy: each has sent the headers of a slow JSON body (B's own, so the key gate lets them through).
    const inFlightBefore = await bodyBytesInFlight();
    const busy = await Promise.all(Array.from({ length: PER_ADDRESS }, () => raw(port, '127.0.0.20')));
    for (const c of busy)
      c.socket.write(
        head('PUT', `/api/v2/flows/${n.orgB}`, {
          Authorization: `Bearer ${n.keyB}`,
          'Content-Type': 'application/json',
          'Content-Length': 1000,
        }) + '{',
      );
    await eventually(bodyBytesInFlight, (bytes) => bytes >= inFlightBefore + PER_ADDRESS * 1000);
    const refusedBefore = await shed('address', 'new');
    const { text } = await (await raw(port, '127.0.0.20')).closed;
    assert.equal(text, '', 'closed before anything was read or answered');
    assert.equal((await shed('address', 'new')) - refusedBefore, 1);
    for (const c of busy) c.socket.destroy();
  });

  it("caps an organization's JSON bodies in flight (429 before reading), its neighbour's own writes go on; the total caps all", async () => {
    // Two of A's slow 5 MB bodies are in flight: 10 MB of its 12 MiB.
    const slow = await Promise.all([raw(port), raw(port)]);
    for (const [i, c] of slow.entries())
      c.socket.write(
        head('PUT', `/api/v2/flows/${n.t.org}`, {
          Authorization: `Bearer ${n.t.key}`,
          'Content-Type': 'application/json',
          'Content-Length': 5 * MB,
        }) + `{"name":"slow-${i}","description":"`,
      );
    await eventually(bodyBytesInFlight, (bytes) => bytes >= 10 * MB);
    const third = await raw(port);
    third.socket.write(
      head('PUT', `/api/v2/flows/${n.t.org}`, {
        Authorization: `Bearer ${n.t.key}`,
        'Content-Type': 'application/json',
        'Content-Length': 5 * MB,
      }) + '{',
    );
    const refusedA = (await third.closed).text;
    assert.equal(statusOf(refusedA), 429, refusedA.slice(0, 300));
    assert.match(refusedA, /\r\nRetry-After: 2\r\n/i);
    assert.match(refusedA, /\r\nConnection: close\r\n/i);
    assert.deepEqual(Object.keys((bodyOf(refusedA) as { errors: object }).errors), ['orgBodyBytesInFlight']);

    // B writes on, with room of its own; B's 9 MB body would pass the 18 MiB in all (A holds 10 MB).
    assert.equal((await n.asB(`/api/v2/flows/${n.orgB}`, putFlow('during-attack'))).status, 201);
    const big = await raw(port, '127.0.0.2');
    big.socket.write(
      head('PUT', `/api/v2/flows/${n.orgB}`, {
        Authorization: `Bearer ${n.keyB}`,
        'Content-Type': 'application/json',
        'Content-Length': 9 * MB,
      }) + '{',
    );
    const refusedAll = (await big.closed).text;
    assert.equal(statusOf(refusedAll), 429, refusedAll.slice(0, 300));
    assert.deepEqual(Object.keys((bodyOf(refusedAll) as { errors: object }).errors), ['bodyBytesInFlight']);
    assert.equal((await victimReads()).status, 200);

    // A's slow senders go: their bytes are room again.
    for (const c of slow) c.socket.destroy();
    const admitted = await eventually(
      () => n.asA(`/api/v2/flows/${n.t.org}`, putFlow('after-attack')).then((r) => r.status),
      (status) => status === 201,
    );
    assert.equal(admitted, 201);
  });

  it("answers 413 at once to a JSON body announced over the parser's limit, reading none of it", async () => {
    const client = await raw(port);
    client.socket.write(
      head('PUT', `/api/v2/flows/${n.t.org}`, {
        Authorization: `Bearer ${n.t.key}`,
        'Content-Type': 'application/json',
        'Content-Length': 11 * MB,
      }) + '{',
    );
    const { text } = await client.closed;
    assert.equal(statusOf(text), 413, text.slice(0, 300));
    assert.deepEqual(bodyOf(text), { message: 'Request body exceeds the 10MB limit' });
  });

  it('shows no organization in /metrics to a caller without the metrics token (none set)', async () => {
    const res = await fetch(`${n.baseUrl}/metrics`);
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.match(text, /des_http_request_duration_seconds_bucket/);
    assert.doesNotMatch(text, /org="/);
    assert.doesNotMatch(text, /des_tenant_/);
    assert.doesNotMatch(text, new RegExp(n.orgB));
  });
});

describe('strangers cost nothing: the server closes slow and silent connections', () => {
  const HEADERS_MS = 1500;
  const REQUEST_MS = 6000;
  const IDLE_MS = 700;
  const KEEP_ALIVE_MS = 300;
  const TOKEN = 'metrics-token-for-the-scraper';
  let n: Neighbourhood;
  let port: number;

  before(async () => {
    n = await startNeighbourhood('embedded', {
      DES_HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
      DES_HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
      DES_HTTP_IDLE_TIMEOUT_MS: String(IDLE_MS),
      DES_HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
      DES_HTTP_MAX_REQUESTS_PER_SOCKET: '3',
      DES_METRICS_TOKEN: TOKEN,
    });
    port = portOf(n);
  });
  after(async () => n.close());

  it('closes a connection that never sends a byte at the idle timeout, answering nothing', async () => {
    const { text, afterMs } = await (await raw(port)).closed;
    assert.equal(text, '');
    console.log(`# a silent connection closed after ${afterMs} ms (idle timeout ${IDLE_MS} ms)`);
  });

  it('answers 408 to headers trickled slower than the headers timeout', async () => {
    const client = await raw(port);
    const line = head('GET', `/api/v2/flows/${n.orgB}`, { Authorization: `Bearer ${n.keyB}` });
    let sent = 0;
    // A byte every 100 ms: never idle, never done.
    const trickle = setInterval(() => client.socket.write(line[sent++ % (line.length - 2)]), 100);
    const { text, afterMs } = await client.closed;
    clearInterval(trickle);
    assert.equal(statusOf(text), 408, text);
    assert.deepEqual(Object.keys((bodyOf(text) as { errors: object }).errors), ['timeout']);
    // Well before the request timeout: the headers' own deadline closed it.
    assert.ok(afterMs < REQUEST_MS, `closed after ${afterMs} ms`);
    console.log(`# trickled headers: 408 after ${afterMs} ms (headers timeout ${HEADERS_MS} ms)`);
  });

  it('answers 408 to a body trickled slower than the request timeout', async () => {
    const client = await raw(port);
    client.socket.write(
      head('PUT', `/api/v2/flows/${n.t.org}`, {
        Authorization: `Bearer ${n.t.key}`,
        'Content-Type': 'application/json',
        'Content-Length': 10_000,
      }),
    );
    const trickle = setInterval(() => client.socket.write(' '), 100);
    const { text, afterMs } = await client.closed;
    clearInterval(trickle);
    assert.equal(statusOf(text), 408, text);
    assert.ok(afterMs >= HEADERS_MS, `closed after ${afterMs} ms`);
    console.log(`# trickled body: 408 after ${afterMs} ms (request timeout ${REQUEST_MS} ms)`);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout, and a connection after its requests per socket', async () => {
    const client = await raw(port);
    const get = head('GET', `/api/v2/flows/${n.t.org}`, { Authorization: `Bearer ${n.t.key}` });
    client.socket.write(get);
    await client.received(/HTTP\/1\.1 200/);
    const { afterMs } = await client.closed;
    // Node keeps a connection a second beyond the timeout it announces; its default is 5 s.
    assert.ok(afterMs < 5000, `idle keep-alive connection closed after ${afterMs} ms`);

    const reused = await raw(port);
    for (let i = 1; i <= 3; i++) {
      reused.socket.write(get);
      await reused.received(new RegExp(`(HTTP/1\\.1 200[^]*){${i}}`));
    }
    const { text } = await reused.closed;
    const answers = text.split(/(?=HTTP\/1\.1 )/);
    assert.equal(answers.length, 3);
    assert.doesNotMatch(answers[1], /\r\nConnection: close\r\n/i);
    assert.match(answers[2], /\r\nConnection: close\r\n/i);
  });

  it('serves /metrics only to the bearer of DES_METRICS_TOKEN, with the per-organization series', async () => {
    const callers: Record<string, string>[] = [
      {},
      { Authorization: `Bearer ${n.t.key}` },
      { Authorization: 'Bearer wrong-token' },
    ];
    for (const headers of callers) {
      const res = await fetch(`${n.baseUrl}/metrics`, { headers });
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.doesNotMatch(await res.text(), /des_/);
    }
    const res = await fetch(`${n.baseUrl}/api/v2/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 200);
    assert.match(await res.text(), /^# TYPE des_tenant_event_log_bytes gauge$/m);
  });
});
