import { describe, it } from 'node:test';
import { projectionSpec } from '#des/projections/testing';
import { attestationsProjection } from './attestations.projection';
import { artifactData, attestation, fp, trail } from './trails.testing';

const { given } = projectionSpec(attestationsProjection);
const stream = 'trail-acme/backend/main-1';

describe('attestations projection', () => {
  it('keeps every attestation as recorded, where and when, by its id; nothing else', async () => {
    await given(
      { stream, type: 'trail_reported', data: { ...trail } },
      { stream, type: 'artifact_reported', data: { ...artifactData } },
      { stream, type: 'attestation_reported', data: attestation('tests', false), at: 5 },
      { stream, type: 'attestation_reported', data: { ...attestation('tests', true), id: 'tests-2' }, at: 6 },
      { stream, type: 'attestation_reported', data: attestation('scan', true, fp), at: 7 },
    ).then('attestations', [
      {
        _id: 'acme/scan',
        org: 'acme',
        flow: 'backend',
        trail: 'main-1',
        name: 'scan',
        artifact_fingerprint: fp,
        reported_at: 7,
      },
      { _id: 'acme/tests', name: 'tests', compliant: false, artifact_fingerprint: null, reported_at: 5 },
      { _id: 'acme/tests-2', name: 'tests', compliant: true, reported_at: 6 },
    ]);
  });
});
