import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBenchmark, sized } from './support/run';
import { createHttpApp } from '#des/service';
import { OrganizationBootstrap } from '#des/accounts';
import { loadConfig } from '#des/platform';
import { client, percentile } from './support/http-client';

/**
 * Tenant programs bounded (issue 27): an ordinary custom attestation (a type
 * of 5 jq rules) and an ordinary policy upload, p50. The goal is to be no
 * slower than before jq moved to worker threads and YAML was bounded: the
 * figures measured on the code before that change are printed beside them.
 */
const results: Record<string, unknown> = {};

/**
 * p50 on the code before the change (commit 36fb01d; 2 cores shared with other
 * work, the median of three smoke runs: 12.0–27.7 and 7.1–21.6 ms). Full-size
 * runs of that code did not finish: jq-wasm, called in-process, aborted
 * ("Assertion failed") within the first attestations and then spun on the
 * event loop.
 */
const BEFORE_P50_MS = { custom_attestation_5_rules: 17.0, policy_upload: 11.4 };

const RULES = [
  '.lines >= 80',
  '.lines <= 100',
  '.branches | length > 0',
  '[.branches[] | .covered] | all',
  '.tool == "cobertura"',
];

const POLICY = `_schema: https://kosli.com/schemas/policy/environment/v1
artifacts:
  provenance:
    required: true
  trail-compliance:
    required: true
    exceptions:
      - if: \${{ flow.tags.tier == "sandbox" }}
  attestations:
    - name: unit-tests
      type: junit
    - name: scan
      type: snyk
      if: \${{ flow.tags.risk == "high" and not (flow.name in ["docs", "sandbox"]) }}
    - name: review
      type: pull_request
      exceptions:
        - if: \${{ matches(artifact.name, "^registry\\\\.example/hotfix-") }}
    - name: coverage
      type: custom:coverage
      must_be_compliant: true
`;

/** PUT /policies/{org} as the Kosli CLI sends it: multipart, payload and policy_file.0. */
function uploadPolicy(port: number, key: string, name: string): Promise<number> {
  const boundary = 'bench-boundary-3d9f';
  const body = [
    `--${boundary}`,
    'Content-Disposition: form-data; name="payload"',
    '',
    JSON.stringify({ name, description: 'bench', comment: 'c', type: 'env' }),
    `--${boundary}`,
    'Content-Disposition: form-data; name="policy_file.0"; filename="policy.yml"',
    'Content-Type: application/x-yaml',
    '',
    POLICY,
    `--${boundary}--`,
    '',
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'PUT',
        path: '/api/v2/policies/bench',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function report(name: keyof typeof BEFORE_P50_MS, samples: number[]): void {
  const p50 = percentile(samples, 50);
  const before = BEFORE_P50_MS[name];
  results[name] = {
    p50_ms: +p50.toFixed(2),
    p99_ms: +percentile(samples, 99).toFixed(2),
    before_p50_ms: before,
    goal: 'p50 no slower than before',
    runs: samples.length,
  };
  console.log(
    `${name.replace(/_/g, ' ')}: p50 ${p50.toFixed(2)} ms (before ${before} ms; goal ≤ before), ` +
      `p99 ${percentile(samples, 99).toFixed(2)} ms over ${samples.length} runs`,
  );
}

runBenchmark('tenant-programs', results, async () => {
  const app = await createHttpApp({
    config: loadConfig({ DES_DATA_DIR: mkdtempSync(join(tmpdir(), 'des-bench-tp-')), LOG_LEVEL: 'silent' }),
    role: 'all',
  });
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as { port: number }).port;
  const key = (await app.get(OrganizationBootstrap).createOrganization('bench', [], 10)).key;
  const http = client(port, { authorization: `Bearer ${key}` });
  await http.call('PUT', '/api/v2/flows/bench', { name: 'svc' });
  await http.call('PUT', '/api/v2/trails/bench/svc', { name: 't0', git_commit_info: { sha1: 'c0ffee' } });
  const type = await http.call('POST', '/api/v2/custom-attestation-types/bench', {
    name: 'coverage',
    schema: {
      type: 'object',
      required: ['lines', 'branches', 'tool'],
      properties: {
        lines: { type: 'number' },
        tool: { type: 'string', pattern: '^[a-z]+$' },
        branches: { type: 'array', items: { type: 'object', properties: { covered: { type: 'boolean' } } } },
      },
    },
    jq_rules: RULES,
  });
  if (type.status !== 201) throw new Error(`the custom type was refused: ${type.body}`);

  const warmup = 5;
  const attestations = sized(300, 20);
  const custom: number[] = [];
  for (let i = 0; i < warmup + attestations; i++) {
    const data = {
      lines: 80 + (i % 20),
      tool: 'cobertura',
      branches: Array.from({ length: 20 }, (_, b) => ({ name: `b${b}`, covered: (i + b) % 50 !== 0 })),
    };
    const s = performance.now();
    const res = await http.call('POST', '/api/v2/attestations/bench/svc/trail/t0/custom', {
      attestation_name: `coverage-${i % 10}`,
      type_name: 'coverage',
      attestation_data: data,
    });
    if (res.status !== 201) throw new Error(`custom attestation answered ${res.status}: ${res.body}`);
    if (i >= warmup) custom.push(performance.now() - s);
  }
  report('custom_attestation_5_rules', custom);

  const uploads = sized(200, 20);
  const policy: number[] = [];
  for (let i = 0; i < warmup + uploads; i++) {
    const s = performance.now();
    const status = await uploadPolicy(port, key, `policy-${i}`);
    if (status !== 201) throw new Error(`policy upload answered ${status}`);
    if (i >= warmup) policy.push(performance.now() - s);
  }
  report('policy_upload', policy);
  http.close();
  await app.close();
});
