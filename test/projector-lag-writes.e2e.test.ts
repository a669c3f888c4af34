import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Response } from 'supertest';
import { EVENT_STORE } from '#des/platform';
import type { EventStore } from '#des/event-store';
import { modeEnv, startApp, TestApp } from './support/app';
import { Child, eventually, startProcess, startProjector } from './support/processes';
import { readWholeLog } from './support/log';

const FP = 'a'.repeat(64);

/**
 * ADR 0045: in server mode, a write whose read models have not caught up
 * within the read-your-writes wait is recorded; its answer must never say
 * otherwise (the hostile harness saw 404 "Artifact not found" for recorded
 * artifact reports while the projector lagged).
 */
describe('server mode: a recorded write while the projector is stopped', () => {
  let env: NodeJS.ProcessEnv;
  let api: TestApp;
  let projector: Child;

  /** A write sent until it is answered with more than "recorded, not yet readable" (the same key each time). */
  const settled = (send: () => Promise<Response>) => eventually(send, (r) => r.status !== 503, 30_000);

  before(async () => {
    env = await modeEnv('server', { DES_READ_YOUR_WRITES_TIMEOUT_MS: '1000' });
    projector = await startProjector(env, 30_000);
    api = await startApp({ mode: 'server', role: 'api', env });
    const flow = await settled(() =>
      api.http.put('/api/v2/flows/acme').set('Idempotency-Key', 'lag-flow').send({ name: 'backend' }),
    );
    assert.equal(flow.status, 201, JSON.stringify(flow.body));
    await projector.stop();
  });
  after(async () => {
    await api?.close();
    await projector?.stop();
  });

  const reportArtifact = () =>
    api.http
      .post('/api/v2/artifacts/acme/backend')
      .set('Idempotency-Key', 'lag-artifact')
      .send({ fingerprint: FP, filename: 'ghcr.io/acme/backend:1', trail_name: 'main-1' });

  const recordedButNotReadable = (res: Response) => {
    assert.notEqual(res.status, 404, `a recorded write answered ${res.status} ${JSON.stringify(res.body)}`);
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.equal(res.body.message, 'Database temporarily unavailable; retry the request.');
    assert.match(res.body.errors.readYourWrites, /The write is recorded/);
    assert.equal(res.headers['retry-after'], '5');
  };

  it('answers 503 "recorded" (not 404, not the old state), and a retry with its key answers it once caught up', async () => {
    recordedButNotReadable(await reportArtifact());
    // Without a key too; a changed flow is not answered with its description before the change.
    recordedButNotReadable(await api.http.put('/api/v2/flows/acme').send({ name: 'backend', description: 'new' }));

    projector = startProcess('projector', env);
    const read = await eventually(
      () => api.http.get(`/api/v2/artifacts/acme/backend/${FP}`),
      (r) => r.status === 200,
      30_000,
    );
    assert.equal(read.body.trail, 'main-1');
    assert.equal((await api.http.get('/api/v2/flows/acme/backend')).body.description, 'new');

    const retried = await settled(reportArtifact);
    assert.equal(retried.status, 201, JSON.stringify(retried.body));
    assert.equal(retried.body.fingerprint, FP);
    assert.equal(retried.body.trail, 'main-1');
    const log = await readWholeLog(api.app.get<EventStore>(EVENT_STORE));
    const reports = log.filter((e) => e.type === 'artifact_reported' && e.data.fingerprint === FP);
    assert.equal(reports.length, 1, 'the retry resumed the recorded write instead of recording it again');
  });
});
