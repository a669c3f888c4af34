import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FlowTemplate } from '#des/flows';
import { artifactEvidence, evidenceSummary, pullRequestPeople, trailEvidence } from './evidence-summary';
import type { AttestationView, TrailView } from './trail.view';

const attestation = (type: AttestationView['type'], evidence: Record<string, unknown>, extra = {}) =>
  ({ type, evidence, name: 'x', compliant: true, reported_at: 1, ...extra }) as unknown as AttestationView;

describe('evidence summary', () => {
  it('counts junit tests, failures, errors and skips over the suites', () => {
    const a = attestation('junit', {
      junit_results: [
        { name: 'a', tests: 10, failures: 1, errors: 0, skipped: 2 },
        { name: 'b', total: 5, failures: 0, errors: 1 },
      ],
    });
    assert.deepEqual(evidenceSummary(a), ['15 tests in 2 suites: 1 failure, 1 error, 2 skipped']);
  });

  it('counts scan findings, listed or per severity', () => {
    assert.deepEqual(evidenceSummary(attestation('snyk', { snyk_results: { vulnerabilities: [{}, {}] } })), [
      '2 findings',
    ]);
    assert.deepEqual(
      evidenceSummary(
        attestation('snyk', {
          snyk_results: { results: [{ high_count: 1, medium_count: 0, low_count: 3 }] },
        }),
      ),
      ['4 findings (high 1, medium 0, low 3)'],
    );
  });

  it('names pull requests with their authors and approvers, and attachments with their SHA-256', () => {
    const a = attestation(
      'pull_request',
      {
        pull_requests: [
          {
            url: 'https://git.example/pr/1',
            state: 'MERGED',
            author: 'ann',
            approvers: ['bob', { username: 'cy' }],
          },
          { url: 'https://git.example/pr/2', author: { login: 'dee' } },
        ],
      },
      { attachments: [{ filename: 'r.txt', sha256: 'ab'.repeat(32), size: 1 }] },
    );
    assert.deepEqual(evidenceSummary(a), [
      'https://git.example/pr/1 (MERGED) by ann; approved by bob, cy',
      'https://git.example/pr/2 by dee; approved by no one',
      `r.txt (1 byte), SHA-256 ${'ab'.repeat(32)}`,
    ]);
    assert.deepEqual(pullRequestPeople(a), { authors: ['ann', 'dee'], approvers: ['bob', 'cy'] });
    assert.deepEqual(pullRequestPeople(attestation('generic', {})), { authors: [], approvers: [] });
  });
});

describe("an artifact's evidence on its trail", () => {
  const template = {
    trail: { attestations: [{ name: 'tests', type: 'junit' }] },
    artifacts: [
      { name: 'image', attestations: [{ name: 'scan', type: 'generic' }] },
      { name: 'chart', attestations: [] },
    ],
  } as unknown as FlowTemplate;
  const artifact = (
    fingerprint: string,
    ref: string | null,
    attestations: Record<string, AttestationView> = {},
  ) => ({
    fingerprint,
    template_reference_name: ref,
    attestations,
  });
  const view = {
    attestations: { review: attestation('generic', {}, { name: 'review', reported_at: 5 }) },
    artifacts: [
      artifact('f1', 'image'),
      artifact('f2', null, { sbom: attestation('generic', {}, { name: 'sbom', compliant: false }) }),
      artifact('f1', 'chart'),
    ],
    event_count: 4,
  } as unknown as TrailView;

  it("names what the template lacks for it, the trail's and the artifact's attestations; the first of a fingerprint", () => {
    const of = trailEvidence(view, template);
    assert.deepEqual(of('f1'), {
      trail: { review: { type: 'generic', compliant: true, recorded_at: 5 } },
      artifact: {},
      missing: ['tests', 'artifact/image/scan'],
    });
    assert.deepEqual(of('f2').missing, ['tests']);
    assert.deepEqual(of('f2').artifact, { sbom: { type: 'generic', compliant: false, recorded_at: 1 } });
    assert.deepEqual(of('unknown'), { ...of('f2'), artifact: {} });
  });

  it('answers each artifact as artifactEvidence does, one at a time', () => {
    const of = trailEvidence(view, template);
    for (const fingerprint of ['f1', 'f2', 'unknown'])
      assert.deepEqual(of(fingerprint), artifactEvidence(view, template, fingerprint));
  });
});
