import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Mode, modeEnv, startApp, TestApp } from './support/app';

/**
 * Issue 49, found by the hostile-tenant harness: the same artifact allowed
 * by concurrent requests. The first appends; the others find it already
 * allowed and record nothing, and answered from the read models before the
 * projector had reached that first write: `entries.find(…)!` was undefined, a 500.
 */
for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`allowing one artifact concurrently (${mode} mode)`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp({ mode, env: await modeEnv(mode) });
      await t.http.put(`/api/v2/environments/${t.org}`).send({ name: 'prod', type: 'K8S' }).expect(201);
    });
    after(async () => t.close());

    it('answers every request with the entry, each of them after it is recorded', async () => {
      // At its largest, as the harness sent it: names and reasons at their longest.
      const artifact_name = 'a'.repeat(1024);
      const description = 'r'.repeat(5000);
      for (let round = 0; round < 10; round++) {
        const artifact_fingerprint = createHash('sha256').update(`artifact ${round}`).digest('hex');
        const body = { artifact_fingerprint, artifact_name, description };
        const answers = await Promise.all(
          [1, 2, 3].map(() => t.http.put(`/api/v2/allowlists/${t.org}/prod`).send(body)),
        );
        for (const res of answers) {
          assert.equal(res.status, 200, `round ${round}: ${res.status} ${res.text.slice(0, 300)}`);
          assert.equal(res.body.fingerprint, artifact_fingerprint);
          assert.equal(res.body.description, description);
        }
      }
    });
  });
}
