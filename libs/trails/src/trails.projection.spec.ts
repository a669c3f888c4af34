import { describe, it } from 'node:test';
import { projectionSpec } from '#des/projections/testing';
import { trailsProjection } from './trails.projection';
import { artifactData, attestation, fp, trail } from './trails.testing';

const { given } = projectionSpec(trailsProjection);
const stream = 'trail-acme/backend/main-1';
const history = [
  { stream, type: 'trail_reported', data: { ...trail } },
  { stream, type: 'artifact_reported', data: { ...artifactData }, at: 5 },
  { stream, type: 'attestation_reported', data: { ...attestation('tests', true), type: 'junit' }, at: 7 },
];

describe('trails projection', () => {
  it('keeps the trail as shown, with its artifacts and attestations', async () => {
    await given(...history).then('trails', [
      {
        _id: 'acme/backend/main-1',
        org: 'acme',
        flow: 'backend',
        name: 'main-1',
        created_at: 1,
        last_modified_at: 7,
      },
    ]);
  });

  it('keeps each artifact report, found by fingerprint across trails', async () => {
    await given(...history).then('artifacts', [
      {
        _id: `acme/backend/${fp}`,
        org: 'acme',
        flow: 'backend',
        trail: 'main-1',
        filename: 'backend:1',
        git_commit: 'abc',
        reported_at: 5,
      },
    ]);
  });

  it('keeps one timeline entry per event, numbered by its revision', async () => {
    await given(...history).then('trail_events', [
      {
        _id: 'acme/backend/main-1#0',
        seq: 0,
        type: 'trail_reported',
        timestamp: 1,
        summary: 'trail main-1 begun',
      },
      { _id: 'acme/backend/main-1#1', seq: 1, type: 'artifact_reported', timestamp: 5 },
      { _id: 'acme/backend/main-1#2', seq: 2, summary: 'junit attestation tests: compliant' },
    ]);
  });
});
