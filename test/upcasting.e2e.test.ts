import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type EventStore, SCHEMA_VERSION, UpcastingEventStore } from '#des/event-store';
import { verifyTrees } from '#des/ledger';
import { EVENT_STORE } from '#des/platform';
import { startApp, type TestApp } from './support/app';
import { checkpointCovering } from './support/ledger';
import { eventually } from './support/processes';

const fixture = JSON.parse(
  readFileSync(join(__dirname, '../../test/fixtures/evaluation-requested-schema-1.json'), 'utf8'),
) as {
  stream: string;
  event: { id: string; type: string; data: Record<string, unknown>; metadata: Record<string, unknown> };
};

/**
 * Issue 28, item 6: one time unit per field family (instants in the log are
 * µs), and an event written at an older schema is upcast as it is read,
 * never rewritten: an `evaluation_requested` of schema 1 (seconds) reads as
 * schema 2 (µs) everywhere, the API answers the same seconds, and the stored
 * bytes, which the transparency log's leaves hash, stay as written.
 */
describe('upcasting: an evaluation requested before schema 2 (embedded mode)', () => {
  let t: TestApp;
  let log: UpcastingEventStore;
  before(async () => {
    t = await startApp({ mode: 'embedded' });
    log = t.app.get<EventStore>(EVENT_STORE) as UpcastingEventStore;
    // Appended as stored, beneath the service's schema stamping: what the earlier code left in the log.
    await log.inner.append(fixture.stream, [fixture.event], 'no_stream');
  });
  after(() => t?.close());

  it('reads it in today’s schema: requested_at in µs inside, the same seconds in the answer', async () => {
    const [read] = await log.readStream(fixture.stream);
    assert.equal(read.data.requested_at, 1_795_488_000_123_000);
    const id = fixture.event.data.id as string;
    const res = await eventually(
      () => t.http.get(`/api/v2/evaluations/${t.org}/${id}`),
      (r) => r.status === 200,
    );
    assert.equal(res.body.requested_at, 1_795_488_000.123);
    assert.equal(res.body.recorded_at, 1_795_487_999);
    assert.equal(res.body.status, 'pending');
  });

  it('leaves the stored event as written, and the checkpoints of its tree hold', async () => {
    const [stored] = await log.inner.readStream(fixture.stream);
    assert.equal(stored.data.requested_at, 1_795_488_000.123);
    assert.equal(stored.metadata[SCHEMA_VERSION], undefined);
    await checkpointCovering(t, t.org);
    const { vkey } = (await t.http.get(`/api/v2/ledger/${t.org}/key`).expect(200)).body as { vkey: string };
    const [tree] = (await verifyTrees(log.inner, vkey, { org: t.org })).trees;
    assert.ok(tree.checkpoints > 0, 'a checkpoint covers the event');
    assert.equal(tree.failed, undefined);
  });

  it('writes a new request at schema 2, in µs', async () => {
    assert.equal((await t.http.put(`/api/v2/flows/${t.org}`).send({ name: 'svc' })).status, 201);
    assert.equal((await t.http.put(`/api/v2/trails/${t.org}/svc`).send({ name: 'main' })).status, 201);
    const res = await t.http.post(`/api/v2/evaluations/${t.org}`).send({
      context: { trails: [{ flow: 'svc', trail: 'main' }] },
      policy: { files: { 'policy.rego': 'package policy\ndefault allow := true\n' } },
    });
    assert.equal(res.status, 201, res.text);
    const [stored] = await log.inner.readStream(`evaluation-${t.org}/${res.body.id}`);
    assert.equal(stored.metadata[SCHEMA_VERSION], 2);
    assert.equal(stored.data.requested_at, Math.round(res.body.requested_at * 1_000_000));
    assert.ok(Number(stored.data.requested_at) > 1e15, 'microseconds since the epoch, not seconds');
  });
});
