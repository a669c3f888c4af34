#!/usr/bin/env node
// Records what a Kosli CLI sends, to refresh the fixtures the replay tests use:
//   node test/kosli-cli/record.mjs <listen port> <service URL> <directory>
// then point the CLI at it (KOSLI_HOST=http://localhost:<listen port>). Every
// request is forwarded to the service unchanged and written, with the answer,
// to <directory>/<nnn>.json (the body base64, byte for byte).
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';

const [port, target, dir] = process.argv.slice(2);
if (!port || !target || !dir) {
  console.error('usage: record.mjs <listen port> <service URL> <directory>');
  process.exit(2);
}
mkdirSync(dir, { recursive: true });
let n = 0;
http
  .createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const headers = { ...req.headers };
      delete headers.host;
      delete headers['content-length'];
      const answer = await fetch(new URL(req.url, target), {
        method: req.method,
        headers,
        body: body.length ? body : undefined,
      });
      const text = Buffer.from(await answer.arrayBuffer());
      const recorded = {
        method: req.method,
        path: req.url,
        content_type: req.headers['content-type'] ?? null,
        body_base64: body.toString('base64'),
        status: answer.status,
        answer: text.toString('utf8').slice(0, 4000),
      };
      writeFileSync(join(dir, `${String(++n).padStart(3, '0')}.json`), JSON.stringify(recorded, null, 2));
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
      res.end(text);
    });
  })
  .listen(Number(port), '127.0.0.1', () => console.log(`recording to ${dir}, forwarding to ${target}`));
