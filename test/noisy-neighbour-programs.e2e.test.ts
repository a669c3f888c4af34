// des-test: alone (it measures another organization's latency or the event loop's delay: nothing may run beside it)
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Mode } from './support/app';
import { assertUnharmed, Neighbourhood, startNeighbourhood, watchNeighbour } from './support/noisy-neighbour';

/**
 * Issue 27, tenant programs: organization A gives the service jq rules that
 * never end, patterns that backtrack, YAML built to stall the parser; it gets
 * the documented refusals (400/413, or a non-compliant attestation whose rule
 * result is a `timeout` error) while organization B is served within the
 * harness's bounds, and the process stays up.
 */
const SCHEMA_LINE = '_schema: https://kosli.com/schemas/policy/environment/v1\n';

/**
 * Runs `attack` `concurrency` at a time, at least `times` times and for at
 * least 2 s (so B probes throughout), and returns every answer.
 */
async function repeatedly<T>(
  times: number,
  concurrency: number,
  attack: (i: number) => Promise<T>,
): Promise<T[]> {
  const answers: T[] = [];
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < times || Date.now() - started < 2000) answers.push(await attack(next++));
    }),
  );
  return answers;
}

/** The answers these attacks get (an error body, or a custom attestation). */
interface Body {
  message: string;
  errors: Record<string, string>;
  compliant: boolean;
  evidence: { rule_results: { result: unknown; error: string }[]; schema_errors: string[] };
}

const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as Body });

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`noisy neighbour: tenant programs (${mode} mode)`, () => {
    let n: Neighbourhood;
    let org: string;
    const post = (path: string, body: unknown) =>
      n
        .asA(path, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        })
        .then(json);
    const createType = (name: string, schema: object, rules: string[]) =>
      post(`/api/v2/custom-attestation-types/${org}`, { name, schema, jq_rules: rules });
    const attest = (type: string, data: unknown) =>
      post(`/api/v2/attestations/${org}/svc/trail/t1/custom`, {
        attestation_name: type,
        type_name: type,
        attestation_data: data,
      });
    /**
     * A multipart upload streamed from buffers with node:http: the client
     * shares the process, so it must not build or copy the body on the event loop.
     */
    const multipart = (path: string, fields: Record<string, string>, file: [string, Buffer]) => {
      const boundary = 'nn-programs-5e1d';
      const head = Object.entries(fields)
        .map(
          ([name, value]) =>
            `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
        )
        .join('');
      const fileHead = `--${boundary}\r\nContent-Disposition: form-data; name="${file[0]}"; filename="doc.yml"\r\n\r\n`;
      const url = new URL(n.baseUrl);
      return new Promise<{ status: number; body: Body }>((resolve, reject) => {
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            method: 'PUT',
            path,
            headers: {
              Authorization: `Bearer ${n.t.key}`,
              'Content-Type': `multipart/form-data; boundary=${boundary}`,
            },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (d: string) => (text += d));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Body }));
          },
        );
        req.on('error', reject);
        req.write(head + fileHead);
        req.write(file[1]);
        req.end(`\r\n--${boundary}--\r\n`);
      });
    };
    const payload = (name: string) => JSON.stringify({ name, description: 'd', comment: 'c', type: 'env' });
    const putPolicy = (name: string, yaml: string | Buffer) =>
      multipart(`/api/v2/policies/${org}`, { payload: payload(name) }, [
        'policy_file.0',
        typeof yaml === 'string' ? Buffer.from(yaml) : yaml,
      ]);
    const putTemplate = (name: string, yaml: string | Buffer) =>
      multipart(
        `/api/v2/flows/${org}/template_file`,
        { data_json: JSON.stringify({ name, description: 'd' }) },
        ['template_file', typeof yaml === 'string' ? Buffer.from(yaml) : yaml],
      );
    const watch = () => watchNeighbour(n, `/api/v2/flows/${n.orgB}`);

    before(async () => {
      n = await startNeighbourhood(mode);
      org = n.t.org;
      const flow = await n.asA(`/api/v2/flows/${org}`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'svc' }),
      });
      assert.equal(flow.status, 201);
      const trail = await n.asA(`/api/v2/trails/${org}/svc`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 't1', git_commit_info: { sha1: 'c0ffee' } }),
      });
      assert.equal(trail.status, 201);
    });
    after(async () => n.close());

    it('a jq rule that never ends refuses the type, naming the rule', async () => {
      const w = watch();
      const answers = await repeatedly(6, 3, (i) =>
        createType(`forever-${i}`, {}, ['true', 'def f: f; f', '[limit(100000000; repeat(1))] | length > 0']),
      );
      assertUnharmed('jq rule that never ends', await w.stop());
      for (const a of answers) {
        assert.equal(a.status, 400);
        assert.equal(a.body.message, 'Input payload validation failed');
        assert.match(a.body.errors['jq_rules[1]'], /^timeout: the rule ran over its budget of \d+ ms/);
        assert.match(a.body.errors['jq_rules[2]'], /^(timeout|memory): /);
        assert.equal(a.body.errors['jq_rules[0]'], undefined);
      }
    });

    it('a rule over its budget on the data makes the attestation non-compliant with a timeout error', async () => {
      assert.equal((await createType('spin', {}, ['.n | until(. < 0; . + 1)', '.n == 1'])).status, 201);
      const w = watch();
      const answers = await repeatedly(8, 4, () => attest('spin', { n: 1 }));
      assertUnharmed('jq rule over its budget at attestation', await w.stop());
      for (const a of answers) {
        assert.equal(a.status, 201);
        assert.equal(a.body.compliant, false);
        const [spin, plain] = a.body.evidence.rule_results;
        assert.equal(spin.result, null);
        assert.match(spin.error, /^timeout: the rule ran over its budget of \d+ ms$/);
        assert.equal(plain.result, true);
      }
    });

    it('a backtracking pattern in a schema is matched on RE2; one RE2 cannot take is refused naming its field', async () => {
      const schema = { type: 'object', properties: { v: { type: 'string', pattern: '^(a+)+$' } } };
      assert.equal((await createType('backtrack', schema, [])).status, 201);
      const w = watch();
      const answers = await repeatedly(10, 5, () => attest('backtrack', { v: `${'a'.repeat(27)}!` }));
      const refused = await createType('backref', { properties: { v: { pattern: '^(a+)\\1$' } } }, []);
      assertUnharmed('backtracking schema pattern', await w.stop());
      for (const a of answers) {
        assert.deepEqual([a.status, a.body.compliant], [201, false]);
        assert.match(a.body.evidence.schema_errors[0], /must match pattern/);
      }
      assert.equal(refused.status, 400);
      assert.match(refused.body.errors['schema.properties.v.pattern'], /not a supported regular expression/);
    });

    it('a policy matches() pattern RE2 cannot take is refused naming its field', async () => {
      const policy = `${SCHEMA_LINE}artifacts:\n  attestations:\n    - name: a\n      type: junit\n      if: \${{ matches(flow.name, "^(a)\\\\1") }}\n`;
      const refused = await putPolicy('backref', policy);
      assert.equal(refused.status, 400);
      assert.match(refused.body.errors['artifacts.attestations[0].if'], /not a supported regular expression/);
    });

    it('YAML built to stall the parser is refused before it is parsed (policies and templates)', async () => {
      // Built before B is watched: the client shares the process, and building them is not the service's work.
      const keys = (count: number) => Array.from({ length: count }, (_, i) => `k${i}: ${i}`).join('\n');
      const flowSequence = (bytes: number) => `[${'a,'.repeat(bytes / 2)}a]`;
      const documents = {
        'policy 40,000 keys': Buffer.from(SCHEMA_LINE + keys(40_000)),
        'policy 15,000 keys': Buffer.from(SCHEMA_LINE + keys(15_000)),
        'policy 9.5 MB flow': Buffer.from(flowSequence(9.5 * 1024 * 1024)),
        'template 40,000 keys': Buffer.from(keys(40_000)),
        'template 200 KB flow': Buffer.from(`trail: ${flowSequence(200 * 1024)}`),
        // A 9.5 MB template_file is refused 413 too, but after DataJsonGuard has taken it whole into memory:
        // streaming multipart uploads is another part of issue 27 (uploads), so it is not an attack here yet.
      };
      const attacks = Object.entries(documents);
      const w = watch();
      const answers = await repeatedly(attacks.length * 2, 3, async (i) => {
        const [attack, document] = attacks[i % attacks.length];
        const upload = attack.startsWith('policy') ? putPolicy : putTemplate;
        return [attack, await upload(`${attack.replace(/[^a-z0-9]+/g, '-')}-${i}`, document)] as const;
      });
      assertUnharmed('YAML built to stall the parser', await w.stop());
      for (const [attack, a] of answers) {
        const field = attack.startsWith('policy') ? 'policy_file' : 'template_file';
        const tooLarge = /40,000|9\.5 MB/.test(attack);
        assert.equal(a.status, tooLarge ? 413 : 400, `${attack}: ${JSON.stringify(a.body)}`);
        assert.ok(a.body.errors?.[field], `${attack} names ${field}: ${JSON.stringify(a.body)}`);
        if (!tooLarge) assert.match(a.body.errors[field], /more than 2000 nodes/);
      }
      // The service still answers A too.
      const ordinary = await putPolicy(
        'ordinary',
        `${SCHEMA_LINE}artifacts:\n  provenance:\n    required: true\n`,
      );
      assert.equal(ordinary.status, 201);
    });
  });
}
