import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { FEATURES, OrganizationBootstrap } from '#des/accounts';
import { UploadAdmission } from '#des/platform';
import type { Neighbourhood } from './noisy-neighbour';
import { eventually } from './processes';
import { sendUpload, type StreamedUpload, type UploadAnswer } from './streamed-multipart';

/** Helpers of the upload tests: attestations with streamed files, and what they leave behind. */

const MB = 1024 * 1024;

export const tmpFiles = (n: Neighbourhood) => readdirSync(join(n.t.config.dataDir, 'attachments', 'tmp'));

/** The spec's error body, with the message and the limit named. */
export function assertRefusal(answer: UploadAnswer, status: number, message: RegExp, field: string) {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  assert.match(String(answer.body.message), message);
  assert.ok(answer.body.errors && field in answer.body.errors, JSON.stringify(answer.body));
}

/** Uploads that ended left nothing behind: no temporary file, nothing held for the organization. */
export async function assertNothingLeft(n: Neighbourhood, org = n.t.org) {
  // Temporary files removed and uploads released.
  await eventually(
    async () => ({ files: tmpFiles(n).length, held: n.t.app.get(UploadAdmission).inFlight(org) }),
    ({ files, held }) => files === 0 && held.uploads === 0 && held.bytes === 0,
    30_000,
  );
}

export async function setUp(n: Neighbourhood) {
  const put = (as: 'A' | 'B', path: string, body: unknown) =>
    (as === 'A' ? n.asA : n.asB)(path, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    }).then((r) => assert.ok(r.status === 201 || r.status === 200, `${path}: ${r.status}`));
  await put('A', `/api/v2/flows/${n.t.org}`, { name: 'shop' });
  await put('A', `/api/v2/trails/${n.t.org}/shop`, { name: 't1' });
  await put('A', `/api/v2/environments/${n.t.org}`, { name: 'prod', type: 'K8S' });
  await put('B', `/api/v2/flows/${n.orgB}`, { name: 'web' });
}

/** Attestations on trail shop/t1 of `org`, with their files streamed (one file of 1 MB unless said). */
export const uploader =
  (n: Neighbourhood, org: string, key: string) => (name: string, u: Partial<StreamedUpload>) =>
    sendUpload({
      baseUrl: n.baseUrl,
      path: `/api/v2/attestations/${org}/shop/trail/t1/generic`,
      key,
      dataJson: { attestation_name: name },
      files: 1,
      fileBytes: MB,
      seed: `${org}/${name}`,
      ...u,
    });

export async function recordedAttestations(
  n: Neighbourhood,
  org = n.t.org,
  key = n.t.key,
): Promise<Record<string, { attachments?: unknown[] }>> {
  const res = await fetch(`${n.baseUrl}/api/v2/trails/${org}/shop/t1`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  const trail = (await res.json()) as { attestations?: Record<string, { attachments?: unknown[] }> };
  return trail.attestations ?? {};
}

/** An organization of its own (its usage counts for no other test), with flow shop and trail t1. */
export async function organization(n: Neighbourhood, name: string) {
  const org = `${name}-${process.pid}`;
  const { key } = await n.t.app.get(OrganizationBootstrap).createOrganization(org, [...FEATURES], 20);
  const put = (path: string, body: unknown) =>
    fetch(`${n.baseUrl}${path}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    }).then((r) => assert.equal(r.status, 201, path));
  await put(`/api/v2/flows/${org}`, { name: 'shop' });
  await put(`/api/v2/trails/${org}/shop`, { name: 't1' });
  return {
    upload: uploader(n, org, key),
    recorded: () => recordedAttestations(n, org, key),
    inFlight: () => n.t.app.get(UploadAdmission).inFlight(org),
    nothingLeft: () => assertNothingLeft(n, org),
  };
}
