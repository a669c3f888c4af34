import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { textNestsDeeperThan } from '#des/platform';
import { runningArtifacts, type K8sPod } from './k8s-report';
import { POD_ENTRY_OVERHEAD, snapshotBytesAtLeast, SnapshotSizeScan } from './k8s-report-size';

/** What the pods weigh in the snapshot: every pod entry of every running artifact, as the log serializes it. */
const podEntriesBytes = (pods: K8sPod[]) =>
  runningArtifacts(pods)
    .flatMap((a) => a.pods)
    .reduce((sum, entry) => sum + Buffer.byteLength(JSON.stringify(entry), 'utf8'), 0);

const text = (value: unknown, indent?: number) => Buffer.from(JSON.stringify(value, null, indent), 'utf8');

/** JSON with every non-ASCII character written as a `\uXXXX` escape (as some clients send it). */
const asciiOnly = (value: unknown) =>
  Buffer.from(
    JSON.stringify(value).replace(
      /[\u0080-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    ),
  );

const digest = fc.stringMatching(/^[0-9a-f]{64}$/).map((hex) => `sha256:${hex}`);
const name = fc.string({ minLength: 1, maxLength: 20, unit: 'binary' });
const pod: fc.Arbitrary<K8sPod> = fc.record({
  creationTimestamp: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
  digests: fc.dictionary(name, digest, { minKeys: 1, maxKeys: 3 }),
  namespace: name,
  podName: name,
});

describe('snapshotBytesAtLeast', () => {
  it('never counts more than the snapshot would hold, however the report is written', () => {
    fc.assert(
      fc.property(fc.array(pod, { maxLength: 30 }), (pods) => {
        const report = { artifacts: pods };
        const weight = podEntriesBytes(pods);
        for (const written of [text(report), text(report, 2), asciiOnly(report)])
          assert.ok(snapshotBytesAtLeast(written) <= weight, `${snapshotBytesAtLeast(written)} > ${weight}`);
      }),
    );
  });

  it('counts each pod of plain names to within its timestamp digits', () => {
    const pods = Array.from({ length: 100 }, (_, i) => ({
      creationTimestamp: 1_790_000_000,
      digests: { [`web:${i}`]: `sha256:${'a'.repeat(64)}` },
      namespace: 'shop',
      podName: `web-${i}`,
    }));
    const weight = podEntriesBytes(pods);
    const timestampDigitsBeyondOne = pods.length * ('1790000000'.length - 1);
    assert.equal(snapshotBytesAtLeast(text({ artifacts: pods })), weight - timestampDigitsBeyondOne);
    assert.equal(POD_ENTRY_OVERHEAD, '{"pod":"","namespace":"","created_at":}'.length);
  });

  it('counts only the pods of `artifacts`: not owners, digests, other keys, nor an artifacts array JSON.parse drops', () => {
    const one = {
      creationTimestamp: 1,
      digests: { podName: `sha256:${'b'.repeat(64)}` },
      namespace: 'n',
      podName: 'p',
    };
    const alone = snapshotBytesAtLeast(text({ artifacts: [one] }));
    assert.equal(alone, POD_ENTRY_OVERHEAD + 3);
    const nested = { ...one, owners: [{ podName: 'x'.repeat(500), namespace: 'y'.repeat(500) }] };
    assert.equal(snapshotBytesAtLeast(text({ artifacts: [nested] })), alone);
    assert.equal(snapshotBytesAtLeast(text({ cluster: [one, one], artifacts: [one] })), alone);
    const repeated = Buffer.from(
      `{"artifacts":[${JSON.stringify(one)},${JSON.stringify(one)}],"artifacts":[${JSON.stringify(one)}]}`,
    );
    assert.equal(snapshotBytesAtLeast(repeated), alone);
    assert.equal(snapshotBytesAtLeast(text([{ artifacts: [one] }])), 0);
    assert.equal(snapshotBytesAtLeast(Buffer.from('{"artifacts":[{"podName":"unterminated')), 0);
  });

  it('counts a pod once per image digest it names: 100,000 digests in one pod weigh 100,000 entries', () => {
    const digests = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`img-${i}`, `sha256:${'c'.repeat(64)}`]));
    const pod = (n: number) => ({ creationTimestamp: 1, digests: digests(n), namespace: 'n', podName: 'p' });
    const scan = new SnapshotSizeScan();
    scan.write(text({ artifacts: [pod(1), pod(100_000), pod(2)] }));
    assert.equal(scan.digests, 100_003);
    assert.equal(scan.mostDigestsInPod, 100_000);
    assert.equal(scan.podWithMostDigests, 1);
    assert.equal(scan.total, 100_003 * (POD_ENTRY_OVERHEAD + 3));
  });

  it('counts the digests JSON.parse keeps: a repeated `digests` key its last object, none outside `artifacts`', () => {
    const d = (n: number) =>
      JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`i${i}`, 'x'])));
    const scan = new SnapshotSizeScan();
    scan.write(
      Buffer.from(
        `{"digests":${d(9)},"artifacts":[{"digests":${d(50)},"podName":"p","digests":${d(2)},"owners":[{"digests":${d(7)}}]}]}`,
      ),
    );
    assert.equal(scan.digests, 2);
    assert.equal(scan.total, 2 * (POD_ENTRY_OVERHEAD + 3));
  });

  it('reads a repeated name as JSON.parse does (the last one)', () => {
    const twice = Buffer.from(
      `{"artifacts":[{"podName":"${'p'.repeat(1000)}","podName":"q","namespace":"n"}]}`,
    );
    assert.equal(snapshotBytesAtLeast(twice), POD_ENTRY_OVERHEAD + 3);
  });

  it('counts the same from the text in chunks split anywhere (an escape, a name, a quote cut in two)', () => {
    fc.assert(
      fc.property(fc.array(pod, { maxLength: 10 }), fc.array(fc.nat(), { maxLength: 8 }), (pods, cuts) => {
        for (const written of [text({ artifacts: pods }, 1), asciiOnly({ artifacts: pods })]) {
          const at = [...new Set(cuts.map((c) => c % (written.length + 1)))].sort((a, b) => a - b);
          const scan = new SnapshotSizeScan();
          let from = 0;
          for (const to of [...at, written.length]) {
            scan.write(written.subarray(from, to));
            from = to;
          }
          assert.equal(scan.total, snapshotBytesAtLeast(written));
          const named = pods.map((p) => Object.keys(p.digests).length);
          assert.equal(
            scan.digests,
            named.reduce((a, b) => a + b, 0),
          );
          assert.equal(scan.mostDigestsInPod, Math.max(0, ...named));
          if (named.length) assert.equal(named[scan.podWithMostDigests], scan.mostDigestsInPod);
        }
      }),
    );
  });

  it("counts the separators between `artifacts` items only (not those of a pod's own arrays or other keys)", () => {
    const scan = new SnapshotSizeScan();
    scan.write(
      text({
        other: [1, 2, 3],
        artifacts: [{ podName: 'a', owners: [1, 2] }, 'x', 3, [4, 5], { namespace: ',' }],
      }),
    );
    assert.equal(scan.separators, 4);
    const empty = new SnapshotSizeScan();
    empty.write(text({ artifacts: [] }));
    assert.equal(empty.separators, 0);
  });

  it('measures nesting as the general body check does (strings skipped)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => {
        const written = text(value);
        const scan = new SnapshotSizeScan();
        scan.write(written);
        for (let limit = 0; limit <= 9; limit++)
          assert.equal(scan.deepest > limit, textNestsDeeperThan(written, limit));
      }),
    );
  });
});
