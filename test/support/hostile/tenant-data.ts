import { digestsOf, sendUpload } from '../streamed-multipart';
import { SPARE } from './cases';
import { eventually } from '../processes';
import type { FixedContext } from './fixed-cases';
import { ORGS, Service } from './service';
import { VICTIM } from './victim';

/**
 * "Huge records in the tenant's own data": the attacker's big trail (large
 * attestations and 10 MB attachments), many artifacts under one fingerprint
 * prefix, a big environment; and the victim's small environment, flow and
 * trail. Sizes scale with DES_HOSTILE_FULL (the issue's) or default to a
 * setup of well under a minute.
 */
export interface SeedSizes {
  /** Attestations of about 900 kB on the big trail. */
  bigAttestations: number;
  /** 10 MB attachments on the big trail (two per upload). */
  attachments: number;
  artifacts: number;
  environmentPods: number;
}

export function seedSizes(env: NodeJS.ProcessEnv = process.env): SeedSizes {
  const full = env.DES_HOSTILE_FULL === '1';
  return {
    bigAttestations: full ? 57 : 11,
    attachments: Number(env.DES_HOSTILE_ATTACHMENTS ?? (full ? 8 : 4)),
    artifacts: full ? 4000 : 1000,
    environmentPods: 3000,
  };
}

export const BIG = {
  flow: 'big-flow',
  trail: 'big-trail',
  artifactsTrail: 'artifacts-trail',
  env: 'big-env',
  artifactPrefix: 'abcd',
};

async function call(
  service: Service,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<number> {
  const res = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300)
    throw new Error(`seeding: ${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return res.status;
}

async function inBatches(total: number, width: number, one: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < total; i += width)
    await Promise.all(Array.from({ length: Math.min(width, total - i) }, (_, j) => one(i + j)));
}

const fingerprint = (i: number) => `${BIG.artifactPrefix}${i.toString(16).padStart(60, '0')}`;

export async function seedTenants(
  service: Service,
  sizes: SeedSizes,
): Promise<Omit<FixedContext, 'full' | 'idleConnections'>> {
  const a = service.keys.attacker;
  const v = service.keys.victim;
  const org = ORGS.attacker;
  // The victim's own small world.
  await call(service, v, 'PUT', `/api/v2/environments/${ORGS.victim}`, { name: VICTIM.env, type: 'K8S' });
  await call(service, v, 'PUT', `/api/v2/flows/${ORGS.victim}`, { name: VICTIM.flow });
  await call(service, v, 'PUT', `/api/v2/trails/${ORGS.victim}/${VICTIM.flow}`, { name: VICTIM.trail });
  // The attacker's large one.
  await call(service, a, 'PUT', `/api/v2/environments/${org}`, { name: BIG.env, type: 'K8S' });
  await call(service, a, 'PUT', `/api/v2/flows/${org}`, { name: BIG.flow });
  await call(service, a, 'PUT', `/api/v2/trails/${org}/${BIG.flow}`, { name: BIG.trail });
  // What the renaming, archiving and deleting routes get instead of the big records (cases.ts SPARE).
  await call(service, a, 'PUT', `/api/v2/environments/${org}`, { name: SPARE, type: 'K8S' });
  await call(service, a, 'PUT', `/api/v2/flows/${org}`, { name: SPARE });
  let notFoundArtifacts = 0;
  const blob = 'x'.repeat(900 * 1024);
  await inBatches(sizes.bigAttestations, 2, (i) =>
    call(service, a, 'POST', `/api/v2/attestations/${org}/${BIG.flow}/trail/${BIG.trail}/generic`, {
      attestation_name: `big-${i}`,
      is_compliant: true,
      user_data: { blob },
    }),
  );
  const attachments: string[] = [];
  for (let i = 0; i < sizes.attachments; i += 2) {
    const upload = {
      files: Math.min(2, sizes.attachments - i),
      fileBytes: 10 * 1000 * 1000,
      seed: `hostile-${i}`,
    };
    const answer = await sendUpload({
      ...upload,
      baseUrl: service.baseUrl,
      path: `/api/v2/attestations/${org}/${BIG.flow}/trail/${BIG.trail}/generic`,
      key: a,
      dataJson: { attestation_name: `files-${i}`, is_compliant: true },
    });
    if (answer.status !== 201)
      throw new Error(`seeding attachments: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
    attachments.push(...(await digestsOf(upload)));
  }
  // On a trail of their own. Server mode answers many of these 404 "Artifact not found" though
  // it recorded them (the read-your-writes wait, 5 s, runs out behind the projector while the
  // big trail is projected: a finding, ADR 0042); they are counted, and the projector awaited.
  await inBatches(sizes.artifacts, 8, async (i) => {
    const res = await fetch(`${service.baseUrl}/api/v2/artifacts/${org}/${BIG.flow}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${a}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        fingerprint: fingerprint(i),
        filename: `artifact-${i}`,
        trail_name: BIG.artifactsTrail,
        git_commit: i.toString(16).padStart(40, 'c'),
      }),
    });
    await res.arrayBuffer();
    if (res.status === 404) notFoundArtifacts++;
    else if (res.status !== 201) throw new Error(`seeding artifact ${i}: ${res.status}`);
  });
  if (notFoundArtifacts) {
    console.log(
      `# hostile seeding: ${notFoundArtifacts} of ${sizes.artifacts} artifact reports answered 404 though recorded`,
    );
    await eventually(
      () =>
        fetch(`${service.baseUrl}/api/v2/artifacts/${org}/${BIG.flow}/${fingerprint(sizes.artifacts - 1)}`, {
          headers: { Authorization: `Bearer ${a}` },
        }).then((r) => r.status),
      (status) => status === 200,
      180_000,
    );
  }
  // The largest snapshot one write may carry: halved until it fits (the count depends on the event's encoding).
  for (let pods = sizes.environmentPods; ; pods = Math.floor(pods / 2)) {
    const answer = await fetch(`${service.baseUrl}/api/v2/environments/${org}/${BIG.env}/report/K8S`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${a}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        artifacts: Array.from({ length: pods }, (_, i) => ({
          podName: `pod-${i}`,
          namespace: 'big',
          creationTimestamp: 1_790_000_000,
          digests: { [`ghcr.io/big/a${i}:1`]: `sha256:${fingerprint(i)}` },
        })),
      }),
    });
    await answer.arrayBuffer();
    if (answer.status < 300) {
      sizes.environmentPods = pods;
      break;
    }
    if (answer.status !== 413 || pods < 100) throw new Error(`seeding the big environment: ${answer.status}`);
  }
  return {
    baseUrl: service.baseUrl,
    key: a,
    org,
    flow: BIG.flow,
    trail: BIG.trail,
    env: BIG.env,
    attachments,
    artifactPrefix: BIG.artifactPrefix,
  };
}

/** The path parameters the harness fills with the attacker's own records (reads then touch its large data). */
export function targetsOf(context: Omit<FixedContext, 'full' | 'idleConnections'>): Record<string, string> {
  return {
    org: context.org,
    flow: context.flow,
    trail: context.trail,
    env: context.env,
    fingerprint: fingerprint(0),
    sha256: context.attachments[0] ?? '0'.repeat(64),
    prefix: context.artifactPrefix,
    name: 'big-0',
    resource_id: context.flow,
    number: '1',
    id: 'x',
    identifier: 'control-1',
    delivery: '1',
    index: '0',
    ref: '-1',
  };
}
