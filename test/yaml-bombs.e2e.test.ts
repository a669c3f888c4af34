import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, TestApp } from './support/app';

/**
 * Issue 49, the two YAML documents measured to stall or kill the service
 * (embedded mode): a 2 KB template of 1,000 compact nested sequences (the
 * first upload answered 400 "Maximum call stack size exceeded", the second
 * aborted the process: "RegExpCompiler Allocation failed"), and 801 bytes of
 * nested complex keys (10.9 s of parse on the event loop, 449 MB, then a
 * 598 KB answer echoing the key). Each is sent twice to both routes that read
 * YAML; each is refused 400 naming the limit, in a small body, and the
 * service answers afterwards.
 */
const SCHEMA_LINE = '_schema: https://kosli.com/schemas/policy/environment/v1\n';
const BOMBS = {
  'nested sequences': { text: `${'- '.repeat(1000)}x\n`, limit: /nests more than 64 collections/ },
  'nested complex keys': { text: `${'? '.repeat(400)}x\n`, limit: /nests a complex key/ },
};

describe('YAML bombs (embedded mode)', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp({ mode: 'embedded' });
  });
  after(async () => t.close());

  const putPolicy = (name: string, yaml: string) =>
    t.http
      .put(`/api/v2/policies/${t.org}`)
      .field('payload', JSON.stringify({ name, description: 'd', comment: 'c', type: 'env' }))
      .attach('policy_file.0', Buffer.from(yaml), 'policy.yml');
  const putTemplate = (name: string, yaml: string) =>
    t.http
      .put(`/api/v2/flows/${t.org}/template_file`)
      .field('data_json', JSON.stringify({ name, description: 'd' }))
      .attach('template_file', Buffer.from(yaml), 'template.yml');

  for (const [bomb, { text, limit }] of Object.entries(BOMBS)) {
    for (const [route, put, field] of [
      ['policy', putPolicy, 'policy_file'],
      ['template', putTemplate, 'template_file'],
    ] as const) {
      it(`${bomb} as a ${route}: 400 naming the limit, twice, in a small body`, async () => {
        for (const attempt of [1, 2]) {
          const started = Date.now();
          const res = await put(`bomb-${attempt}`, text);
          console.log(`# ${bomb} as a ${route} (${attempt}): ${res.status} in ${Date.now() - started} ms`);
          assert.equal(res.status, 400, res.text.slice(0, 300));
          assert.match(res.body.errors?.[field] ?? '', limit, res.text.slice(0, 300));
          assert.ok(res.text.length < 2048, `a body of ${res.text.length} bytes`);
        }
      });
    }
  }

  it('answers and accepts ordinary documents afterwards', async () => {
    await t.http.get(`/api/v2/flows/${t.org}`).expect(200);
    const policy = await putPolicy(
      'ordinary',
      `${SCHEMA_LINE}artifacts:\n  provenance:\n    required: true\n`,
    );
    assert.equal(policy.status, 201, policy.text);
    const template = await putTemplate(
      'ordinary',
      'version: 1\ntrail:\n  attestations:\n    - name: tests\n      type: junit\n',
    );
    assert.equal(template.status, 201, template.text);
  });
});
