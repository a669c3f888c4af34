import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { complianceStatuses } from './compliance-statuses';
import type { TrailEvent } from './trail.events';
import { evolveTrailView, type TrailView } from './trail.view';
import { artifactData, attestation, fp, trail } from './trails.testing';

const view = (...events: TrailEvent[]) =>
  events.reduce<TrailView | null>((v, e, i) => evolveTrailView(v, 'acme', e, 1_000_000 * (i + 1)), null)!;
const begun: TrailEvent = { type: 'trail_reported', data: trail };
const template = {
  trail: { attestations: [{ name: 'bar', type: 'generic' }] },
  artifacts: [{ name: 'backend', attestations: [{ name: 'foo', type: 'junit' }] }],
};
const missing = (name: string, type: string) => ({
  attestation_name: name,
  attestation_type: type,
  attestation_id: null,
  status: 'MISSING',
  is_compliant: null,
  unexpected: false,
});

describe('compliance statuses', () => {
  it('lists what the template expects as missing before anything is made', () => {
    assert.deepEqual(complianceStatuses(view(begun), template), {
      attestations_statuses: [missing('bar', 'generic')],
      artifacts_statuses: {
        backend: {
          fingerprint: null,
          artifact_name: null,
          status: 'MISSING',
          unexpected: false,
          attestations_statuses: [missing('foo', 'junit')],
        },
      },
    });
  });

  it('gives each made attestation its id and compliance, and lists the unexpected after the expected', () => {
    const statuses = complianceStatuses(
      view(
        begun,
        { type: 'attestation_reported', data: attestation('zeta', true) },
        { type: 'attestation_reported', data: attestation('bar', true) },
        { type: 'artifact_reported', data: artifactData },
        { type: 'attestation_reported', data: attestation('foo', false, fp) },
        {
          type: 'artifact_reported',
          data: { ...artifactData, fingerprint: 'b'.repeat(64), template_reference_name: null },
        },
      ),
      template,
    );
    assert.deepEqual(
      statuses.attestations_statuses.map((s) => [
        s.attestation_name,
        s.attestation_id,
        s.status,
        s.is_compliant,
        s.unexpected,
      ]),
      [
        ['bar', 'bar', 'COMPLETE', true, false],
        ['zeta', 'zeta', 'COMPLETE', true, true],
      ],
    );
    assert.equal(statuses.artifacts_statuses.backend.status, 'NON-COMPLIANT');
    assert.equal(statuses.artifacts_statuses.backend.fingerprint, fp);
    assert.equal(statuses.artifacts_statuses.backend.attestations_statuses[0].is_compliant, false);
    // An artifact the template does not name: under its fingerprint, unexpected.
    assert.deepEqual(
      [
        statuses.artifacts_statuses['b'.repeat(64)].unexpected,
        statuses.artifacts_statuses['b'.repeat(64)].status,
      ],
      [true, 'COMPLIANT'],
    );
  });

  it('without a template, every attestation and artifact is unexpected', () => {
    const statuses = complianceStatuses(
      view(
        begun,
        { type: 'artifact_reported', data: artifactData },
        { type: 'attestation_reported', data: attestation('a', true) },
      ),
      null,
    );
    assert.deepEqual(
      statuses.attestations_statuses.map((s) => s.unexpected),
      [true],
    );
    assert.deepEqual(Object.keys(statuses.artifacts_statuses), ['backend']);
    assert.equal(statuses.artifacts_statuses.backend.unexpected, true);
  });
});
