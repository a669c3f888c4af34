import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import request from 'supertest';
import './support/answers-match-the-document';
import { freePort } from './support/engines';
import { eventually, startProcess } from './support/processes';

describe('first start (the real entry point)', () => {
  it('creates DES_ORG with an admin key printed once, and never again on restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'des-first-'));
    const port = await freePort();
    const env = {
      DES_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      DES_ORG: 'firstco',
      LOG_LEVEL: 'info',
    };
    const base = `http://127.0.0.1:${port}`;

    const first = startProcess('api', env);
    let key: string;
    try {
      const output = await eventually(
        async () => first.output(),
        (o) => /on http:\/\/127\.0\.0\.1:\d+\/api\/v2/.test(o),
        30_000,
      );
      assert.match(output, /Created organization 'firstco' \(features: evaluations, controls\)/);
      key = output.match(/des_[A-Za-z0-9_-]{32}/)![0];
      const res = await request(base)
        .get('/api/v2/service-accounts/firstco')
        .set('Authorization', `Bearer ${key}`);
      assert.deepEqual([res.status, res.body.map((a: { name: string }) => a.name)], [200, ['admin']]);
    } finally {
      await first.stop();
    }

    const second = startProcess('api', env);
    try {
      const output = await eventually(
        async () => second.output(),
        (o) => /on http:\/\/127\.0\.0\.1:\d+\/api\/v2/.test(o),
        30_000,
      );
      assert.doesNotMatch(output, /des_[A-Za-z0-9_-]{32}/, 'the key is never printed again');
      assert.doesNotMatch(output, /Created organization/);
      const res = await request(base)
        .get('/api/v2/service-accounts/firstco')
        .set('Authorization', `Bearer ${key}`);
      assert.equal(res.status, 200, 'the key still works after a restart (read models rebuilt from the log)');
    } finally {
      await second.stop();
    }
  });
});
