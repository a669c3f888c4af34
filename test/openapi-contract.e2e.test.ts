import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { startApp, TestApp } from './support/app';

interface Operation {
  operationId?: string;
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  summary?: string;
  description?: string;
  tags?: string[];
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

describe('the OpenAPI document as a client developer reads it', () => {
  let t: TestApp;
  let document: {
    servers?: { url: string }[];
    tags?: { name: string; description?: string }[];
    paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  };
  const operations = () =>
    Object.entries(document.paths).flatMap(([path, item]) =>
      METHODS.flatMap((method) => (item[method] ? [{ path, method, operation: item[method]! }] : [])),
    );

  before(async () => {
    t = await startApp({ mode: 'embedded' });
    document = (await request(t.server).get('/api/v2/openapi.json')).body;
  });
  after(async () => t.close());

  it('names every operation by a verb and a noun, once, with a summary', () => {
    const all = operations();
    assert.ok(all.length >= 60, `${all.length} operations`);
    for (const { path, method, operation } of all) {
      const where = `${method.toUpperCase()} ${path}`;
      assert.match(operation.operationId ?? '', /^[a-z]+[A-Z][A-Za-z0-9]*$/, `${where}: operationId`);
      assert.ok(operation.summary && operation.summary.length > 5, `${where}: summary`);
    }
    const ids = all.map((o) => o.operation.operationId);
    assert.deepEqual(
      ids.filter((id, i) => ids.indexOf(id) !== i),
      [],
      'operation ids are unique',
    );
  });

  it('types the answer of every success status (204 aside) with a schema', () => {
    const untyped = operations().flatMap(({ path, method, operation }) =>
      Object.entries(operation.responses ?? {})
        .filter(([status]) => status.startsWith('2') && status !== '204')
        .filter(([, response]) => !Object.values(response.content ?? {}).some((c) => c.schema))
        .map(([status]) => `${method.toUpperCase()} ${path} ${status}`),
    );
    assert.deepEqual(untyped, []);
  });

  it('says who may call each operation, tags each with a declared tag, and names its server', () => {
    const declared = new Map((document.tags ?? []).map((tag) => [tag.name, tag.description]));
    for (const { path, method, operation } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      assert.match(
        operation.description ?? '',
        /holds the `(reader|snapshotter|member|admin)` privilege/,
        where,
      );
      assert.ok(operation.tags?.length, `${where}: tagged`);
      for (const tag of operation.tags ?? []) assert.ok(declared.get(tag), `${where}: tag '${tag}' declared`);
    }
    assert.ok(document.servers?.length, 'servers');
  });

  it('serves the API reference at /api/v2/docs from its own files, no CDN', async () => {
    const page = await request(t.server).get('/api/v2/docs/');
    assert.equal(page.status, 200);
    assert.match(page.text, /swagger-ui/i);
    const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    assert.ok(sources.length > 0);
    assert.deepEqual(
      sources.filter((source) => /^(https?:)?\/\//.test(source)),
      [],
      'every script and style from the service',
    );
  });

  it('passes Redocly (recommended) and Spectral (spectral:oas) with no error and no warning', () => {
    const root = resolve(__dirname, '../..');
    const file = join(mkdtempSync(join(tmpdir(), 'des-openapi-')), 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const run = (tool: string, args: string[]) =>
      spawnSync(join(root, 'node_modules/.bin', tool), args, {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      });
    const redocly = run('redocly', ['lint', file, '--format=json']);
    const redoclyProblems = (
      JSON.parse(redocly.stdout.slice(redocly.stdout.indexOf('{'))) as {
        problems: { ruleId: string; severity: string; message: string }[];
      }
    ).problems;
    const spectralOut = `${file}.spectral.json`;
    run('spectral', ['lint', file, '--format=json', `--output=${spectralOut}`, '--fail-severity=hint']);
    const spectralProblems = JSON.parse(readFileSync(spectralOut, 'utf8')) as {
      code: string;
      severity: number;
      message: string;
    }[];
    console.log(
      `# openapi lint: Redocly ${redoclyProblems.length} problems, Spectral ${spectralProblems.length}`,
    );
    assert.deepEqual(
      redoclyProblems.map((p) => `${p.severity} ${p.ruleId}: ${p.message}`),
      [],
      'Redocly recommended',
    );
    assert.deepEqual(
      spectralProblems.map((p) => `${p.code}: ${p.message}`),
      [],
      'Spectral spectral:oas',
    );
  });
});
