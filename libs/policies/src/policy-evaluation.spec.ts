import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ArtifactFacts, judgeArtifact } from './policy-evaluation';
import { namedPolicy, PROVENANCE_RULES } from './policies.testing';

const policy = namedPolicy;
const traced: ArtifactFacts = {
  name: 'registry.example/web:1',
  fingerprint: 'a'.repeat(64),
  flow: { name: 'web', tags: { risk: 'high' } },
  trailCompliant: true,
  attestations: [
    { name: 'unit-tests', type: 'junit', compliant: true },
    { name: 'scan', type: 'snyk', compliant: false },
  ],
};
const untraced: ArtifactFacts = {
  ...traced,
  name: 'datadog/agent:7',
  flow: null,
  trailCompliant: null,
  attestations: [],
};

const provenance = policy('provenance', PROVENANCE_RULES);

describe('judging an artifact against environment policies', () => {
  it('is compliant with no policy, and with rules it meets', () => {
    assert.deepEqual(judgeArtifact([], untraced), { compliant: true, reasons: [] });
    assert.deepEqual(judgeArtifact([provenance], traced), { compliant: true, reasons: [] });
  });

  it('requires provenance and trail compliance, unless an exception holds', () => {
    assert.deepEqual(judgeArtifact([provenance], { ...untraced, name: 'web:2' }).reasons, [
      'provenance: no trail reported this artifact (provenance required)',
      'provenance: no trail to be compliant (trail compliance required)',
    ]);
    assert.deepEqual(judgeArtifact([provenance], untraced).reasons, [
      'provenance: no trail to be compliant (trail compliance required)',
    ]);
    assert.deepEqual(judgeArtifact([provenance], { ...traced, trailCompliant: false }).reasons, [
      'provenance: its trail is not compliant (trail compliance required)',
    ]);
  });

  it('requires the attestations a rule names, when its if holds, compliant unless told otherwise', () => {
    const attestations = policy(
      'evidence',
      `artifacts:
  attestations:
    - name: unit-tests
      type: junit
    - name: scan
      type: snyk
      if: \${{ flow.tags.risk == "high" }}
    - name: "*"
      type: custom:coverage
      must_be_compliant: false
      exceptions:
        - if: \${{ flow.name == "docs" }}
`,
    );
    assert.deepEqual(judgeArtifact([attestations], traced).reasons, [
      "evidence: attestation 'scan' of type snyk is not compliant",
      'evidence: attestation of any name of type custom:coverage is missing',
    ]);
    const lowRiskDocs = { ...traced, flow: { name: 'docs', tags: { risk: 'low' } } };
    assert.deepEqual(judgeArtifact([attestations], lowRiskDocs), { compliant: true, reasons: [] });
    const covered = {
      ...traced,
      attestations: [...traced.attestations, { name: 'cov', type: 'custom:coverage', compliant: false }],
    };
    assert.equal(
      judgeArtifact([attestations], covered).reasons.length,
      1,
      'a non-compliant coverage is enough',
    );
  });

  it('gathers the reasons of every policy attached', () => {
    const second = policy(
      'second',
      'artifacts:\n  attestations:\n    - { name: review, type: pull_request }\n',
    );
    const decision = judgeArtifact([provenance, second], { ...traced, trailCompliant: false });
    assert.equal(decision.compliant, false);
    assert.deepEqual(decision.reasons, [
      'provenance: its trail is not compliant (trail compliance required)',
      "second: attestation 'review' of type pull_request is missing",
    ]);
  });
});
