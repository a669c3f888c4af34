import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parsePlatformReport } from './platform-report';
import { runningArtifacts } from './k8s-report';

const fp = (c: string) => c.repeat(64);

describe('parsePlatformReport', () => {
  it('reads what the Kosli CLI sends for server, S3 and lambda: one unit per artifact, named by it', async () => {
    const parsed = await parsePlatformReport('server', {
      artifacts: [
        { digests: { 'app.jar': fp('a') }, creationTimestamp: 1_700_000_000 },
        { digests: { 'lib.so': `sha256:${fp('b')}` }, creationTimestamp: 1_700_000_001 },
      ],
    });
    assert.ok('pods' in parsed);
    assert.deepEqual(
      runningArtifacts(parsed.pods).map((a) => [a.fingerprint, a.artifact_name, a.instances, a.pods[0].pod]),
      [
        [fp('a'), 'app.jar', 1, 'app.jar'],
        [fp('b'), 'lib.so', 1, 'lib.so'],
      ],
    );
  });

  it('names ECS tasks, Azure apps and Cloud Run revisions and jobs by their platform; drops digests ECS could not resolve', async () => {
    const ecs = await parsePlatformReport('ECS', {
      artifacts: [
        {
          taskArn: 'arn:task/1',
          cluster_name: 'c',
          service_name: 's',
          digests: { 'web:1': fp('a'), 'sidecar:2': '' },
          creationTimestamp: 1,
        },
        { taskArn: 'arn:task/2', digests: { 'sidecar:2': '' }, creationTimestamp: 1 },
      ],
    });
    assert.ok('pods' in ecs);
    assert.deepEqual(ecs.pods, [
      { podName: 'arn:task/1', namespace: 'c', creationTimestamp: 1, digests: { 'web:1': fp('a') } },
    ]);
    const run = await parsePlatformReport('cloud-run', {
      type: 'cloud-run',
      artifacts: [
        {
          kind: 'service',
          serviceName: 'api',
          revisionName: 'api-001',
          digests: { api: fp('c') },
          creationTimestamp: 2,
        },
        { kind: 'job', jobName: 'nightly', digests: { batch: fp('d') }, creationTimestamp: 3 },
      ],
    });
    assert.ok('pods' in run);
    assert.deepEqual(
      run.pods.map((p) => [p.podName, p.namespace]),
      [
        ['api-001', 'api'],
        ['nightly', 'job'],
      ],
    );
    const azure = await parsePlatformReport('azure-apps', {
      artifacts: [
        {
          app_name: 'shop',
          app_kind: 'app',
          digests_source: 'acr',
          digests: { shop: fp('e') },
          creationTimestamp: 4,
        },
      ],
    });
    assert.ok('pods' in azure && azure.pods[0].podName === 'shop');
  });

  it('names every bad field by path, and refuses what another type carries', async () => {
    const bad = await parsePlatformReport('server', {
      artifacts: [{ digests: { x: 'nothex' } }, { digests: {}, creationTimestamp: 1, taskArn: 'arn' }],
    });
    assert.ok('errors' in bad);
    assert.deepEqual(Object.keys(bad.errors).sort(), [
      'artifacts[0].creationTimestamp',
      'artifacts[0].digests.x',
      'artifacts[1].digests',
      'artifacts[1].taskArn',
    ]);
    const ecs = await parsePlatformReport('ECS', {
      artifacts: [{ digests: { a: fp('a') }, creationTimestamp: 1 }],
    });
    assert.ok('errors' in ecs && ecs.errors['artifacts[0].taskArn'] === 'is required');
    assert.ok('errors' in (await parsePlatformReport('lambda', {})));
  });
});
