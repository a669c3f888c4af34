import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Doc, type DocReads, docReads, MemoryReadStore } from '#des/read-store';
import { assessRunning } from './running-assessment';
import type { RunningArtifact } from './k8s-report';

const ORG = 'acme';
const fingerprint = (i: number) => i.toString(16).padStart(64, '0');

/**
 * An organization whose one trail built `artifacts` artifacts (each reported
 * once), in the embedded read store, and a running set of all of them plus
 * as many nobody reported.
 */
async function organization(artifacts: number) {
  const store = new MemoryReadStore();
  await store.collection('flows').insertOnce([{ _id: `${ORG}/web`, org: ORG, name: 'web', template: null }]);
  const built = Array.from({ length: artifacts }, (_, i) => ({
    fingerprint: fingerprint(i),
    filename: `web:${i}`,
    attestations: {},
  }));
  await store.collection('trails').insertOnce([
    {
      _id: `${ORG}/web/main`,
      org: ORG,
      flow: 'web',
      name: 'main',
      artifacts: built,
      attestations: {},
      created_at: 1,
      last_modified_at: 1,
      event_count: 1,
    },
  ]);
  await store.ensureIndexes('artifacts', [{ name: 'by_fingerprint', keys: { org: 1, fingerprint: 1 } }]);
  await store.collection('artifacts').insertOnce(
    built.map((a) => ({
      _id: `${ORG}/web/${a.fingerprint}`,
      org: ORG,
      flow: 'web',
      trail: 'main',
      fingerprint: a.fingerprint,
      filename: a.filename,
      reported_at: 1,
    })),
  );
  const running: RunningArtifact[] = Array.from({ length: 2 * artifacts }, (_, i) => ({
    fingerprint: fingerprint(i),
    artifact_name: `web:${i}`,
    instances: 1,
    pods: [{ pod: `web-${i}`, namespace: 'shop', created_at: 1 }],
  }));
  return { store, running };
}

/**
 * The reads, each document they give counting how often its fields are
 * looked at: what the assessment does per report and per trail, whatever
 * the machine's speed.
 */
function counted(reads: DocReads): { reads: DocReads; looks: () => number } {
  let looks = 0;
  const watch = (doc: Doc): Doc =>
    new Proxy(doc, {
      get(target, key, receiver) {
        if (key === 'fingerprint' || key === 'flow' || key === 'name' || key === 'trail') looks++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
  return {
    reads: {
      get: async (c, id) => {
        const doc = await reads.get(c, id);
        return doc && watch(doc);
      },
      find: async (c, filter) => (await reads.find(c, filter)).map(watch),
    },
    looks: () => looks,
  };
}

async function assessmentLooks(artifacts: number, policies: string[] = []) {
  const { store, running } = await organization(artifacts);
  const { reads, looks } = counted(docReads(store));
  const assessed = await assessRunning(reads, ORG, policies, running);
  assert.equal(assessed.length, running.length);
  assert.equal(assessed.filter((a) => a.provenance?.length).length, artifacts, 'the reported ones traced');
  return looks();
}

describe('assessRunning: linear in the running set and the reports', () => {
  it('looks at each report a bounded number of times, however many artifacts run and share a trail', async () => {
    const small = await assessmentLooks(250);
    const large = await assessmentLooks(1000);
    // Linear: 4× the input, about 4× the looks (a pass over the reports per artifact would be 16×).
    console.log(
      `# assessRunning: 250 artifacts ${small} field looks, 1,000 artifacts ${large} (${(large / small).toFixed(1)}×)`,
    );
    assert.ok(large <= 5 * small, `${large} looks for 4× the input of ${small}: superlinear`);
    assert.ok(large <= 20 * 1000, `${large} looks for 1,000 reports`);
  });
});
