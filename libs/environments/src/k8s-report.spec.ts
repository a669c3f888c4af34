import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { imageName, parseK8sReport, runningArtifacts } from './k8s-report';

const fp = (c: string) => c.repeat(64);
const pod = (name: string, digests: Record<string, string>) => ({
  creationTimestamp: 1_700_000_000,
  digests,
  namespace: 'prod',
  podName: name,
});

describe('parseK8sReport', () => {
  it('accepts the spec shape, digests with or without a repository', async () => {
    const ok = await parseK8sReport({
      artifacts: [
        pod('a', { 'nginx:1.25': `sha256:${fp('a')}` }),
        pod('b', { app: `registry/app@sha256:${fp('b')}` }),
      ],
    });
    assert.ok('pods' in ok && ok.pods.length === 2);
    assert.ok('pods' in (await parseK8sReport({ artifacts: [] })));
  });

  it('names every bad field by path', async () => {
    const r = await parseK8sReport({
      artifacts: [
        { creationTimestamp: 'yesterday', digests: { web: 'sha256:nothex' }, namespace: 'x' },
        pod('ok', {}),
        { ...pod('p', { a: `sha256:${fp('c')}` }), extra: 1 },
      ],
      cluster: 'eu-1',
    });
    assert.ok('errors' in r);
    assert.deepEqual(r.errors, {
      cluster: 'is not allowed',
      'artifacts[0].podName': 'is required',
      'artifacts[0].creationTimestamp': 'must be number',
      'artifacts[0].digests.web': 'must be a sha256 digest (sha256:<64 hex digits>)',
      'artifacts[1].digests': 'must name at least one image',
      'artifacts[2].extra': 'is not allowed',
    });
    const missing = await parseK8sReport({});
    assert.ok('errors' in missing && missing.errors.artifacts === 'is required');
    const notObject = await parseK8sReport([1]);
    assert.ok('errors' in notObject && notObject.errors.body);
  });
});

describe('runningArtifacts', () => {
  it('groups pods by fingerprint, one instance per pod, sorted', async () => {
    const running = runningArtifacts([
      pod('web-1', { 'web:2': `sha256:${fp('b')}`, sidecar: `sha256:${fp('a')}` }),
      pod('web-2', { 'web:2': `sha256:${fp('b')}`, sidecar: `sha256:${fp('a')}` }),
      pod('job', { 'web:latest': `sha256:${fp('b')}` }),
    ]);
    assert.deepEqual(
      running.map((a) => [a.fingerprint, a.artifact_name, a.instances, a.pods.map((p) => p.pod)]),
      [
        [fp('a'), 'sidecar', 2, ['web-1', 'web-2']],
        [fp('b'), 'web:2', 3, ['web-1', 'web-2', 'job']],
      ],
    );
  });
});

describe('imageName', () => {
  it('drops tag and digest, keeping a registry port', async () => {
    assert.equal(imageName('nginx:1.25'), 'nginx');
    assert.equal(imageName('registry:5000/team/app:2.1'), 'registry:5000/team/app');
    assert.equal(imageName(`ghcr.io/acme/api@sha256:${fp('a')}`), 'ghcr.io/acme/api');
    assert.equal(imageName('busybox'), 'busybox');
  });
});
