/**
 * The platform engineers' guide as a typed program: a flow with a template,
 * a trail, its artifact and attestations, an environment that runs it, what
 * runs there, a Rego evaluation, and a read of the past. Every call goes
 * through the client generated from the service's OpenAPI document, so a
 * change to the API that breaks this program fails its compilation.
 *
 *   BASE=http://localhost:8080/api/v2 KEY=des_… ORG=demo node dist-test/examples/platform-engineer.js
 */
import { answered, createDesClient } from '../clients/typescript';

const { BASE, KEY, ORG = 'demo' } = process.env;
if (!BASE || !KEY) throw new Error('set BASE (the API address) and KEY (an admin API key)');
const des = createDesClient({ base: BASE, key: KEY });
const org = ORG;
const fingerprint = '1'.repeat(64);
const say = (what: string, value: unknown) => console.log(`${what}: ${JSON.stringify(value)}`);

async function main(): Promise<void> {
  // 1. A flow, with a template of what its trails must carry
  const flow = await answered(
    des.PUT('/api/v2/flows/{org}', {
      params: { path: { org } },
      body: {
        name: 'backend',
        description: 'API service',
        template: {
          trail: { attestations: [{ name: 'unit-tests', type: 'junit' }] },
          artifacts: [{ name: 'backend', attestations: [{ name: 'scan', type: 'snyk' }] }],
        },
      },
    }),
  );
  say('flow', flow.name);

  // 2. A trail for one build, with its commit and repository
  const trail = await answered(
    des.PUT('/api/v2/trails/{org}/{flow}', {
      params: { path: { org, flow: 'backend' } },
      body: {
        name: 'main-42',
        description: 'build 42 of main',
        git_commit_info: { sha1: 'abc123', message: 'Fix checkout', author: 'ada', branch: 'main' },
        repo_info: { name: 'acme/backend', url: 'https://github.com/acme/backend', provider: 'github' },
      },
    }),
  );
  say('trail', trail.compliance_status);

  // 3. The artifact it built, tied to the template's "backend"
  await answered(
    des.POST('/api/v2/artifacts/{org}/{flow}', {
      params: { path: { org, flow: 'backend' } },
      body: {
        fingerprint,
        filename: 'ghcr.io/acme/web:1.4',
        trail_name: 'main-42',
        git_commit: 'abc123',
        build_url: 'https://ci.example/42',
        template_reference_name: 'backend',
      },
    }),
  );

  // 4. Attestations: test results on the trail, a scan on the artifact
  const trailPath = { org, flow: 'backend', trail: 'main-42' };
  const tests = await answered(
    des.POST('/api/v2/attestations/{org}/{flow}/trail/{trail}/junit', {
      params: { path: trailPath },
      body: {
        attestation_name: 'unit-tests',
        junit_results: [{ name: 'api', tests: 120, failures: 0, errors: 0 }],
      },
    }),
  );
  const scan = await answered(
    des.POST('/api/v2/attestations/{org}/{flow}/trail/{trail}/snyk', {
      params: { path: trailPath },
      body: {
        attestation_name: 'scan',
        artifact_fingerprint: fingerprint,
        snyk_results: { vulnerabilities: [] },
      },
    }),
  );
  say(
    'attestations',
    [tests, scan].map((a) => `${a.name} ${a.type} compliant=${a.compliant}`),
  );
  const built = await answered(
    des.GET('/api/v2/trails/{org}/{flow}/{trail}', { params: { path: trailPath } }),
  );
  say('trail compliance', built.compliance_status.status);

  // 5. An environment, and a Kubernetes report: the artifact runs in two pods
  await answered(
    des.PUT('/api/v2/environments/{org}', {
      params: { path: { org } },
      body: { name: 'prod', type: 'K8S', description: 'Production cluster' },
    }),
  );
  // Now, pinned: the instant of the latest recorded event (any pinned answer carries it).
  const before = await answered(
    des.GET('/api/v2/audit/{org}/changes', { params: { path: { org }, query: { per_page: 1 } } }),
  );
  const digests = { 'ghcr.io/acme/web:1.4': `sha256:${fingerprint}` };
  await answered(
    des.PUT('/api/v2/environments/{org}/{env}/report/K8S', {
      params: { path: { org, env: 'prod' } },
      body: {
        artifacts: [
          { podName: 'web-1', namespace: 'shop', creationTimestamp: 1790000000, digests },
          { podName: 'web-2', namespace: 'shop', creationTimestamp: 1790000000, digests },
        ],
      },
    }),
  );

  // 6. What runs there, whether it is compliant, and the deployment with its trail
  const snapshot = await answered(
    des.GET('/api/v2/environments/{org}/{env}/snapshots/{ref}', {
      params: { path: { org, env: 'prod', ref: '-1' } },
    }),
  );
  say('snapshot', {
    index: snapshot.index,
    compliant: snapshot.compliant,
    artifacts: snapshot.artifacts.map((a) => `${a.artifact_name} ×${a.instances}`),
  });
  const deployments = await answered(
    des.GET('/api/v2/environments/{org}/{env}/deployments', { params: { path: { org, env: 'prod' } } }),
  );
  say(
    'deployments',
    deployments.deployments.map((d) => `${d.artifact_name} from ${d.trail_names.join(', ')}`),
  );

  // 7. A Rego evaluation over the trail, at the instant it is asked
  const policy = [
    'package policy',
    'import rego.v1',
    'default allow := false',
    'allow if count(violations) == 0',
    'violations contains msg if {',
    '  some t in input.trails',
    '  t.compliance_status.status != "COMPLIANT"',
    '  msg := sprintf("%s is %s", [t.name, t.compliance_status.status])',
    '}',
  ].join('\n');
  const requested = await answered(
    des.POST('/api/v2/evaluations/{org}', {
      params: { path: { org } },
      body: {
        context: { trails: [{ flow: 'backend', trail: 'main-42' }] },
        policy: { files: { 'policy.rego': policy } },
        params: {},
      },
    }),
  );
  let evaluation = requested;
  while (evaluation.status === 'pending') {
    await new Promise((resolve) => setTimeout(resolve, 100));
    evaluation = await answered(
      des.GET('/api/v2/evaluations/{org}/{id}', { params: { path: { org, id: requested.id } } }),
    );
  }
  say('evaluation', { status: evaluation.status, result: evaluation.result });

  // 8. The past: the environment as it was before the report
  const past = await answered(
    des.GET('/api/v2/environments/{org}/{env}', {
      params: {
        path: { org, env: 'prod' },
        query: { at: String(before.at) },
      },
    }),
  );
  say('prod before the report', { last_reported_at: past.last_reported_at });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
