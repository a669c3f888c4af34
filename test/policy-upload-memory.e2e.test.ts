import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Mode, startApp, TestApp } from './support/app';

const MB = 1024 * 1024;
/** What the client offers: far more than the limit, so buffering it whole could not pass unseen. */
const OFFERED = 200 * MB;
/** Live memory the upload may add (the 10 MB limit plus parser and socket buffers). */
const ALLOWED_GROWTH = 40 * MB;

/** Live memory after a full collection (needs node's --expose-gc, which `npm test` passes). */
function liveMemory(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  assert.ok(gc, 'run with --expose-gc (npm test does)');
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`policy upload over the limit (${mode} mode)`, () => {
    let t: TestApp;
    let port: number;
    before(async () => {
      t = await startApp({ mode });
      await new Promise<void>((r) => t.server.listen(0, '127.0.0.1', r));
      port = (t.server.address() as AddressInfo).port;
    });
    after(async () => t.close());

    it('is refused with 413 while the service holds no more than the limit of it', async () => {
      const boundary = 'des-boundary-7f3a';
      const head = [
        `--${boundary}`,
        'Content-Disposition: form-data; name="payload"',
        '',
        JSON.stringify({ name: 'huge', description: 'too big', comment: 'c', type: 'env' }),
        `--${boundary}`,
        'Content-Disposition: form-data; name="policy_file.0"; filename="policy.yml"',
        'Content-Type: application/x-yaml',
        '',
        '',
      ].join('\r\n');
      const chunk = Buffer.alloc(MB, 'a');
      const baseline = liveMemory();
      let peak = 0;
      let sent = 0;

      const req = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'PUT',
        path: '/api/v2/policies/acme',
        headers: { ...t.auth, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      });
      const response = new Promise<IncomingMessage>((resolve, reject) => {
        req.on('response', resolve);
        req.on('error', reject);
      });
      req.write(head);
      // Streamed with back-pressure: the server reads it all (multer drains a refused body so the
      // client reads the answer instead of a reset), holding none of it past the limit.
      while (sent < OFFERED) {
        if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
        sent += chunk.length;
        if (sent % (16 * MB) === 0) peak = Math.max(peak, liveMemory() - baseline);
      }
      req.end(`\r\n--${boundary}--\r\n`);
      const res = await response;
      const body = await new Promise<string>((resolve) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve(text));
      });
      peak = Math.max(peak, liveMemory() - baseline);
      req.destroy();

      assert.equal(res.statusCode, 413);
      assert.deepEqual(JSON.parse(body), { message: 'File size exceeds 10MB limit' });
      assert.ok(
        peak < ALLOWED_GROWTH,
        `live memory grew by ${(peak / MB).toFixed(1)} MB (allowed ${ALLOWED_GROWTH / MB} MB)`,
      );
      // Nothing of it was recorded.
      assert.equal((await t.http.get('/api/v2/policies/acme/huge')).status, 404);
    });
  });
}
