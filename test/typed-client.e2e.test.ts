import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startApp, TestApp } from './support/app';

const ROOT = resolve(__dirname, '../..');
/** Compiled by npm test's compile step, against the client generated from this build's document. */
const EXAMPLE = resolve(__dirname, '../examples/platform-engineer.js');

function run(env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [EXAMPLE], { env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', fail);
    child.on('exit', (code) => done({ code, output }));
  });
}

describe('the typed client and the typed example program', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    t = await startApp({ mode: 'embedded' });
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}/api/v2`;
  });
  after(async () => {
    t.app.getHttpServer().closeAllConnections();
    await t.close();
  });

  it('is generated from the document this service serves', async () => {
    const served = (await t.http.get('/api/v2/openapi.json')).body as unknown;
    const generated = JSON.parse(
      readFileSync(resolve(ROOT, 'clients/typescript/generated/openapi.json'), 'utf8'),
    ) as unknown;
    assert.deepEqual(generated, served);
  });

  it("runs the platform engineers' guide as a typed program against the started service", async () => {
    const { code, output } = await run({ BASE: base, KEY: t.key, ORG: t.org });
    assert.equal(code, 0, output);
    const said = Object.fromEntries(
      output
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf(':')), JSON.parse(line.slice(line.indexOf(':') + 1))]),
    ) as Record<string, unknown>;
    assert.equal(said['trail compliance'], 'COMPLIANT');
    assert.deepEqual(said.snapshot, {
      index: 1,
      compliant: true,
      artifacts: ['ghcr.io/acme/web:1.4 ×2'],
    });
    assert.deepEqual(said.deployments, ['ghcr.io/acme/web:1.4 from main-42']);
    assert.deepEqual(said.evaluation, { status: 'completed', result: { allow: true, violations: [] } });
    assert.deepEqual(said['prod before the report'], { last_reported_at: null });
  });
});
