import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MAX_OBJECT_KEYS, MAX_STRUCTURED_OBJECT_KEYS, MAX_STRUCTURED_VALUES } from '#des/platform';
import { startApp, TestApp } from './support/app';

/**
 * Issue 49: JSON bodies wide rather than deep — very many keys, very long
 * arrays — within the 10 MB body limit, through real write routes. Measures
 * the longest stall of the event loop while each is served (printed), and
 * checks the answer is a small 400 (or the write accepted).
 */
const MB = 1024 * 1024;

/** The longest gap between ticks of a 1 ms timer while `work` runs: the event loop's longest stall. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ value: T; stallMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 1);
  try {
    const value = await work();
    return { value, stallMs };
  } finally {
    clearInterval(timer);
  }
}

describe('wide JSON bodies (embedded mode)', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await startApp({ mode: 'embedded' });
    await new Promise<void>((r) => t.server.listen(0, '127.0.0.1', r));
    port = (t.server.address() as AddressInfo).port;
    // The app's first write (its routes' first use) is not what is measured.
    await send('PUT', `/api/v2/flows/${t.org}`, Buffer.from('{"name":"warm"}'));
  });
  after(async () => t.close());

  const send = (method: string, path: string, body: Buffer) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method,
          path,
          headers: { ...t.auth, 'Content-Type': 'application/json', 'Content-Length': body.length },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  const keys = (count: number) => {
    const parts = ['{"name":"wide","description":"d"'];
    for (let i = 0; i < count; i++) parts.push(`,"k${i}":0`);
    parts.push('}');
    return Buffer.from(parts.join(''));
  };
  const nestedKeys = (count: number) => {
    const parts = ['{"name":"wide","description":"d","tags":{'];
    for (let i = 0; i < count; i++) parts.push(`${i ? ',' : ''}"k${i}":"v"`);
    parts.push('}}');
    return Buffer.from(parts.join(''));
  };
  const objects = (count: number, width: number) => {
    const object = `{${Array.from({ length: width }, (_, i) => `"k${i}":0`).join(',')}}`;
    return Buffer.from(`{"name":"wide","description":"d","extra":[${Array(count).fill(object).join(',')}]}`);
  };
  // The body, its name, description and list, and each object with its keys' values.
  const widestStructured = Math.floor((MAX_STRUCTURED_VALUES - 4) / (MAX_STRUCTURED_OBJECT_KEYS + 1));
  const longArray = (field: string, item: string, count: number) =>
    Buffer.from(`{"name":"wide","description":"d","${field}":[${`${item},`.repeat(count - 1)}${item}]}`);

  for (const [shape, body] of [
    ['top-level keys', () => keys(700_000)],
    ['keys of one nested object', () => nestedKeys(700_000)],
    ['1,000 objects of 1,000 keys', () => objects(1000, 1000)],
    ['380 objects of 256 keys outside free-form fields', () => objects(380, 256)],
    ['775 objects of 128 keys outside free-form fields', () => objects(775, 128)],
    [
      `${widestStructured} objects of ${MAX_STRUCTURED_OBJECT_KEYS} keys (the widest structured body let through)`,
      () => objects(widestStructured, MAX_STRUCTURED_OBJECT_KEYS),
    ],
    ['a long array of numbers', () => longArray('visibility', '0', 5_000_000)],
    ['a long template of names', () => longArray('template', '"a"', 2_000_000)],
  ] as const) {
    it(`${shape} within the body limit: a small 400, and the loop's longest stall printed`, async () => {
      const text = body();
      assert.ok(text.length <= 10 * MB, `${text.length} bytes`);
      const { value: res, stallMs } = await longestStall(() => send('PUT', `/api/v2/flows/${t.org}`, text));
      console.log(
        `# ${shape} (${(text.length / MB).toFixed(1)} MB): ${res.status}, longest stall ${stallMs.toFixed(0)} ms`,
      );
      assert.ok(res.status === 400 || res.status === 413, `${res.status}: ${res.text.slice(0, 300)}`);
      assert.ok(res.text.length < 8 * 1024, `a body of ${res.text.length} bytes`);
    });
  }

  /** A trail whose user data is `objects` objects of `width` keys (a coverage summary: a key per source file). */
  const userData = (objects: number, width: number) => {
    const object = (o: number) =>
      `{${Array.from({ length: width }, (_, i) => `"src/m${o}/file${i}.ts":{"lines":0.9}`).join(',')}}`;
    const data =
      objects === 1
        ? object(0)
        : `{${Array.from({ length: objects }, (_, o) => `"m${o}":${object(o)}`).join(',')}}`;
    return Buffer.from(`{"name":"wide-${objects}-${width}","user_data":${data}}`);
  };

  it(`free-form user data of ${MAX_OBJECT_KEYS} keys is taken (1× and 4× the keys: their stalls printed)`, async () => {
    for (const width of [MAX_OBJECT_KEYS / 4, MAX_OBJECT_KEYS]) {
      const text = userData(1, width);
      const { value: res, stallMs } = await longestStall(() =>
        send('PUT', `/api/v2/trails/${t.org}/warm`, text),
      );
      console.log(
        `# user_data of ${width} keys (${(text.length / MB).toFixed(1)} MB): ${res.status}, longest stall ${stallMs.toFixed(0)} ms`,
      );
      assert.ok(res.status < 300, `${res.status}: ${res.text.slice(0, 300)}`);
    }
    // Their growth (4× the keys) is printed; the validation pipe's is asserted in free-form.spec.ts.
  });

  it('the widest free-form body let through is taken (its stall printed)', async () => {
    // Within the log's largest append (1 MB by default), as a trail's user data must be.
    const objects = 2;
    const text = userData(objects, MAX_OBJECT_KEYS);
    const { value: res, stallMs } = await longestStall(() =>
      send('PUT', `/api/v2/trails/${t.org}/warm`, text),
    );
    console.log(
      `# user_data of ${objects} objects of ${MAX_OBJECT_KEYS} keys (${(text.length / MB).toFixed(1)} MB): ${res.status}, longest stall ${stallMs.toFixed(0)} ms`,
    );
    assert.ok(res.status < 300, `${res.status}: ${res.text.slice(0, 300)}`);
  });
});
