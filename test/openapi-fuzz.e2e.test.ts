import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { Mode, startApp, TestApp } from './support/app';

/** schemathesis, installed by `npm run setup` (pinned in tools/schemathesis/requirements.txt). */
const ST = resolve(__dirname, '../../.tools/venv/bin/st');
/** What a schema-valid request may be answered; 431: the request line's size, a limit of every operation. */
const DEFAULT_ACCEPTED = ['2xx', '3xx', '401', '403', '404', '409', '429', '431', '5xx'];
/** How a schema-violating request may be refused: schemathesis' own list, and 431 for the same reason. */
const DEFAULT_REFUSED = [
  '400',
  '401',
  '403',
  '404',
  '405',
  '406',
  '409',
  '415',
  '422',
  '428',
  '429',
  '431',
  '5xx',
];

/**
 * Rules a schema cannot state, each answered 400 with the field named: a
 * schema-valid request may still be refused by them. Everything else the
 * validation pipe checks is in the document (generated from the same rules).
 */
const SEMANTIC_400 = {
  'POST /api/v2/service-accounts/{org}': 'a name taken already (400, not 409: the Kosli CLI retries a 409)',
  'POST /api/v2/service-accounts/{org}/{name}/api-keys':
    '`expires_at` earlier than now (the clock, not a schema, as for `at`)',
  'POST /api/v2/controls/{org}': 'an identifier taken already (400 for the same reason)',
  'POST /api/v2/custom-attestation-types/{org}': 'a name taken already; jq rules that do not compile',
  'POST /api/v2/attestations/{org}/{flow}/trail/{trail}/custom':
    'a custom type archived takes no new attestation',
  'POST /api/v2/evaluations/{org}': 'Rego that does not compile',
  'PUT /api/v2/environments/{org}':
    'members that exist and are physical; no type change once it has snapshots',
  'PUT /api/v2/environments/{org}/{env}/report/K8S': 'a report only to an environment of that type',
  'PUT /api/v2/flows/{org}/template_file':
    'the template YAML (its own schema, in a file part); an archived flow takes no change',
  'PUT /api/v2/flows/{org}': 'an archived flow takes no change (400: no retry helps)',
  'PUT /api/v2/flows/{org}/{flow}/rename': 'a new name taken already; an archived flow is not renamed',
  'PUT /api/v2/trails/{org}/{flow}':
    'the template YAML of `begin trail --template-file` (its own schema, in a file part)',
  'PUT /api/v2/controls/{org}/{identifier}': 'an archived control takes no change',
  'PATCH /api/v2/tags/{org}/{resource_type}/{resource_id}': 'an archived flow or control takes no tag change',
  ...Object.fromEntries(
    ['server', 'S3', 'lambda', 'ECS', 'docker', 'azure-apps', 'cloud-run'].map((type) => [
      `PUT /api/v2/environments/{org}/{env}/report/${type}`,
      'a report only to an environment of that type, not archived',
    ]),
  ),
  'PUT /api/v2/environments/{org}/{env}/join': 'a logical environment, joined by a physical one',
  'PUT /api/v2/actions/{org}/environments':
    'targets that resolve to public addresses; environments that exist',
  'PUT /api/v2/policies/{org}': 'the policy YAML (its own schema, in a file part)',
  'GET /api/v2/environments/{org}/{env}/deployments': '`from` no later than `to`',
  'GET /api/v2/environments/{org}/{env}/audit_pdf': '`from` no later than `to`',
  'GET /api/v2/audit/{org}/changes': '`from` no later than `to`',
  'GET /api/v2/audit/{org}/changes/sample': '`from` no later than `to`',
  'GET /api/v2/audit/{org}/changes/bundle':
    '`from` no later than `to`; `seed` and `size` together, without `gaps`; at most 1,000 changes',
  'GET /api/v2/ledger/{org}/entries/{index}': 'an index within the latest checkpoint (the log, not a schema)',
  'GET /api/v2/ledger/{org}/proofs/inclusion': 'an index and a tree size within the latest checkpoint',
  'GET /api/v2/ledger/{org}/proofs/consistency': 'tree sizes within the latest checkpoint, `from` ≤ `to`',
};
const AT_IN_FUTURE = '`at` later than now (the past is known; the future is not): the clock, not a schema';

interface Run {
  code: number | null;
  output: string;
}

function schemathesis(args: string[], cwd: string): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(ST, args, { cwd, env: { ...process.env, NO_COLOR: '1', COLUMNS: '120' } });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', fail);
    child.on('exit', (code) => done({ code, output }));
  });
}

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`the OpenAPI document is exact: schemathesis --checks all (${mode} mode)`, () => {
    let t: TestApp;
    let base: string;
    before(async () => {
      t = await startApp({ mode });
      await t.app.listen(0, '127.0.0.1');
      base = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
    });
    after(async () => {
      t.app.getHttpServer().closeAllConnections();
      await t.close();
    });

    it('finds no failure in any operation, every check on', async () => {
      assert.ok(existsSync(ST), `${ST} is missing: run npm run setup`);
      const document = (await request(t.server).get('/api/v2/openapi.json')).body as {
        paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
      };
      const withAt = Object.entries(document.paths).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([, op]) => op.parameters?.some((p) => p.in === 'query' && p.name === 'at'))
          .map(([method]) => `${method.toUpperCase()} ${path}`),
      );
      // A report past its digests (ADR 0040) is refused 413 as the text arrives, before its schema's
      // maxItems is judged: a body both too long and too large may get either answer.
      const reports = Object.keys(document.paths)
        .filter((path) => path.includes('/report/'))
        .map((path) => `PUT ${path}`);
      const exceptions = new Map<string, string[]>();
      for (const [name, why] of Object.entries(SEMANTIC_400)) exceptions.set(name, [why]);
      for (const name of withAt) exceptions.set(name, [...(exceptions.get(name) ?? []), AT_IN_FUTURE]);
      const dir = mkdtempSync(join(tmpdir(), 'des-schemathesis-'));
      writeFileSync(
        join(dir, 'schemathesis.toml'),
        [
          `headers = { Authorization = "Bearer ${t.key}" }`,
          '[checks.positive_data_acceptance]',
          `expected-statuses = ${JSON.stringify(DEFAULT_ACCEPTED)}`,
          '[checks.negative_data_rejection]',
          `expected-statuses = ${JSON.stringify(DEFAULT_REFUSED)}`,
          '',
          '[parameters]',
          `"path.org" = "${t.org}"`,
          ...[...new Set([...exceptions.keys(), ...reports])].flatMap((name) => [
            '',
            ...(exceptions.get(name) ?? []).map((w) => `# ${w}`),
            ...(reports.includes(name)
              ? ['# a report past its digests in all is refused 413 as its text arrives']
              : []),
            '[[operations]]',
            `include-name = "${name}"`,
            ...(exceptions.has(name)
              ? [
                  `checks.positive_data_acceptance.expected-statuses = ${JSON.stringify([...DEFAULT_ACCEPTED, '400'])}`,
                ]
              : []),
            ...(reports.includes(name)
              ? [
                  `checks.negative_data_rejection.expected-statuses = ${JSON.stringify([...DEFAULT_REFUSED, '413'])}`,
                ]
              : []),
          ]),
        ].join('\n'),
      );
      const run = await schemathesis(
        [
          'run',
          `${base}/api/v2/openapi.json`,
          '--checks',
          'all',
          '--max-examples',
          mode === 'embedded' ? '25' : '10',
          '--seed',
          '20261123',
          '--generation-database',
          'none',
          '--workers',
          '1',
        ],
        dir,
      );
      const operations = /Operations:\s+(\d+) selected \/ (\d+) total/.exec(run.output);
      const cases = /(\d+) generated, (.*)/.exec(run.output);
      console.log(
        `# schemathesis (${mode}): ${operations?.[1] ?? '?'} operations, ${cases?.[1] ?? '?'} cases (${cases?.[2] ?? '?'}), ` +
          `${Object.keys(SEMANTIC_400).length} operations with a rule no schema states (state, programs, files, DNS), ` +
          `${withAt.length} taking \`at\` (refused when later than now)`,
      );
      // Failures and errors (a request that raised: a timeout, a dropped connection) each have their section.
      const sections = ['ERRORS', 'FAILURES'].map((name) => run.output.indexOf(name)).filter((i) => i >= 0);
      assert.equal(run.code, 0, run.output.slice(sections.length ? Math.min(...sections) : -4000));
      assert.ok(Number(operations?.[1]) >= 55, run.output.slice(0, 2000));
    });
  });
}
