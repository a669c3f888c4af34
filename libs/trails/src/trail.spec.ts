import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deciderSpec } from '#des/kernel/testing';
import { parseAttestation } from './attestation-types';
import { TrailCommand, trailDecider } from './trail.decider';
import type { AttestationData, TrailEvent } from './trail.events';
import { artifactData, attestation, fp, trail } from './trails.testing';
import { evolveTrailView, trailCompliance, TrailView } from './trail.view';
import { timelineEntry } from './trail-timeline';

const artifact: TrailEvent = { type: 'artifact_reported', data: artifactData };
const { given } = deciderSpec(trailDecider);
const view = (events: TrailEvent[]) =>
  events.reduce<TrailView | null>((v, e, i) => evolveTrailView(v, 'acme', e, 1_000_000 * (i + 1)), null)!;

describe('trail decider', () => {
  const begun: TrailEvent = { type: 'trail_reported', data: trail };
  const attest = (a: AttestationData, targets?: string[]): TrailCommand => ({
    kind: 'report_attestation',
    attestation: a,
    targets,
  });

  it('reports a trail, then updates it only when it changed', () => {
    given().when({ kind: 'put_trail', trail }).then([begun]);
    given(begun).when({ kind: 'put_trail', trail }).then([]);
    const described = { ...trail, description: 'release 1' };
    given(begun)
      .when({ kind: 'put_trail', trail: described })
      .then([{ type: 'trail_updated', data: described }]);
  });

  it('refuses attestations for an unknown trail or artifact', () => {
    given()
      .when(attest(attestation('x', true)))
      .thenError('not_found', 'Trail not found');
    given(begun)
      .when({ ...attest(attestation('x', true, fp)), org: 'acme' } as TrailCommand)
      .thenError(
        'not_found',
        `Artifact with fingerprint ${fp} does not exist in trail "main-1" of flow "backend" belonging to organization "acme"`,
      );
  });

  it('begins the trail an artifact is reported to when it has not begun, then reports an artifact only when it changed', () => {
    given().when({ kind: 'report_artifact', artifact: artifactData, begins: trail }).then([begun, artifact]);
    given(begun)
      .when({ kind: 'report_artifact', artifact: artifactData, begins: { ...trail, description: 'other' } })
      .then([artifact]);
    given(begun, artifact).when({ kind: 'report_artifact', artifact: artifactData, begins: trail }).then([]);
  });

  it('attests each artifact a target names, by template name or fingerprint', () => {
    given(begun, artifact)
      .when(attest(attestation('scan', true), ['backend']))
      .then([{ type: 'attestation_reported', data: { ...attestation('scan', true, fp), id: `scan/${fp}` } }]);
    given(begun, artifact)
      .when(attest(attestation('scan', true), ['frontend']))
      .thenError('not_found', 'Artifact not found in trail', {
        'target_artifacts[0]': "no artifact 'frontend' was reported in this trail",
      });
  });

  it('records what snapshots start and stop running once, however often a snapshot is reacted to', () => {
    const running = (snapshot_index: number) => ({
      fingerprint: fp,
      environment: 'prod',
      snapshot_index,
      artifact_name: 'backend:1',
      flow: 'backend',
      trail: 'main-1',
      commit: null,
      repo: null,
    });
    const started: TrailEvent = { type: 'artifact_started_running', data: running(1) };
    const stopped: TrailEvent = { type: 'artifact_stopped_running', data: running(2) };
    const moves: TrailCommand = {
      kind: 'record_running',
      moves: [
        { move: 'started', running: running(1) },
        { move: 'stopped', running: running(2) },
        { move: 'started', running: running(1) },
      ],
    };
    given(begun, artifact).when(moves).then([started, stopped]);
    // A replay after a crash: what is recorded already is not recorded again.
    given(begun, artifact, started).when(moves).then([stopped]);
    given(begun, artifact, started, stopped).when(moves).then([]);
    // The same artifact started again by a later snapshot is a new move.
    given(begun, artifact, started, stopped)
      .when({ kind: 'record_running', moves: [{ move: 'started', running: running(3) }] })
      .then([{ type: 'artifact_started_running', data: running(3) }]);
    // A trail not in its stream (yet) has nothing to record, and no error stops the reaction.
    given().when(moves).then([]);
  });
});

describe('trail view and compliance', () => {
  const begun: TrailEvent = { type: 'trail_reported', data: trail };
  const template = {
    trail: { attestations: [{ name: 'tests', type: 'junit' }] },
    artifacts: [{ name: 'backend', attestations: [{ name: 'scan', type: 'snyk' }] }],
  };

  it('keeps the latest attestation of a name, on the trail and per artifact, and counts its timeline', () => {
    const v = view([
      begun,
      artifact,
      { type: 'attestation_reported', data: attestation('tests', false) },
      { type: 'attestation_reported', data: attestation('tests', true) },
      { type: 'attestation_reported', data: attestation('scan', true, fp) },
    ]);
    assert.equal(v.attestations.tests.compliant, true);
    assert.equal(v.artifacts[0].attestations.scan.compliant, true);
    assert.equal(v.event_count, 5);
    assert.equal('events' in v, false, 'the timeline lives in its own documents, not in the trail');
    assert.equal(v.created_at, 1);
    assert.equal(v.last_modified_at, 5);
  });

  it('reads each event as one timeline entry, numbered by its revision', () => {
    const running = {
      fingerprint: fp,
      artifact_name: 'backend:1',
      environment: 'prod',
      flow: 'backend',
      trail: 'main-1',
      commit: null,
      repo: null,
    };
    const events: TrailEvent[] = [
      begun,
      { type: 'trail_updated', data: { ...trail, description: 'x' } },
      artifact,
      { type: 'attestation_reported', data: attestation('tests', false) },
      { type: 'attestation_reported', data: attestation('scan', true, fp) },
      {
        type: 'artifact_started_running',
        data: { ...running, snapshot_index: 3 },
      },
      {
        type: 'artifact_stopped_running',
        data: { ...running, snapshot_index: 4 },
      },
    ];
    assert.deepEqual(
      events.map((e, i) => timelineEntry(e, i, 2_500_000 * (i + 1))),
      [
        { seq: 0, type: 'trail_reported', timestamp: 2.5, summary: 'trail main-1 begun' },
        { seq: 1, type: 'trail_updated', timestamp: 5, summary: 'trail updated' },
        {
          seq: 2,
          type: 'artifact_reported',
          timestamp: 7.5,
          summary: 'artifact backend:1 reported (aaaaaaaaaaaa)',
        },
        {
          seq: 3,
          type: 'attestation_reported',
          timestamp: 10,
          summary: 'generic attestation tests: non-compliant',
        },
        {
          seq: 4,
          type: 'attestation_reported',
          timestamp: 12.5,
          summary: 'generic attestation scan: compliant (artifact aaaaaaaaaaaa)',
        },
        {
          seq: 5,
          type: 'artifact_started_running',
          timestamp: 15,
          summary: 'backend:1 started running in prod (snapshot 3)',
        },
        {
          seq: 6,
          type: 'artifact_stopped_running',
          timestamp: 17.5,
          summary: 'backend:1 stopped running in prod (snapshot 4)',
        },
      ],
    );
    assert.equal(view(events).event_count, events.length);
  });

  it('is INCOMPLETE, COMPLIANT or NON-COMPLIANT against a template', () => {
    assert.deepEqual(trailCompliance(view([begun, artifact]), template), {
      status: 'INCOMPLETE',
      missing: ['tests', 'artifact/backend/scan'],
      failing: [],
    });
    const done = [
      begun,
      artifact,
      { type: 'attestation_reported', data: attestation('tests', true) },
      { type: 'attestation_reported', data: attestation('scan', true, fp) },
    ] as TrailEvent[];
    assert.equal(trailCompliance(view(done), template).status, 'COMPLIANT');
    const failing = [
      ...done,
      { type: 'attestation_reported', data: attestation('scan', false, fp) },
    ] as TrailEvent[];
    assert.deepEqual(trailCompliance(view(failing), template).failing, ['artifact/backend/scan']);
    assert.equal(
      trailCompliance(view([begun]), { artifacts: [{ name: 'backend' }] }).missing[0],
      'artifact/backend',
    );
  });

  it('an override replaces the compliance of the attestation of its name, on the trail and on an artifact', () => {
    const override = (name: string, status: boolean, artifact: string | null = null): TrailEvent => ({
      type: 'attestation_reported',
      data: {
        ...attestation(`${name}-override`, status, artifact),
        name,
        type: 'override',
        evidence: {
          reason: 'checked by hand',
          new_compliance_status: status,
          original_attestation_type: 'generic',
        },
      },
    });
    const failing = [
      begun,
      artifact,
      { type: 'attestation_reported', data: attestation('tests', false) },
      { type: 'attestation_reported', data: attestation('scan', false, fp) },
    ] as TrailEvent[];
    assert.deepEqual(trailCompliance(view(failing), template).failing, ['tests', 'artifact/backend/scan']);
    const overridden = view([...failing, override('tests', true), override('scan', true, fp)]);
    assert.equal(trailCompliance(overridden, template).status, 'COMPLIANT');
    assert.deepEqual(overridden.attestations.tests.overridden, {
      id: 'tests',
      type: 'generic',
      compliant: false,
      reported_at: 3,
    });
    // One the template requires, never attested: the override stands for it.
    const standIn = view([begun, artifact, override('tests', true), override('scan', false, fp)]);
    assert.deepEqual(trailCompliance(standIn, template), {
      status: 'NON-COMPLIANT',
      missing: [],
      failing: ['artifact/backend/scan'],
    });
    assert.equal(standIn.artifacts[0].attestations.scan.overridden, null);
  });

  it('a decision (system attestation) is compliant as decided', () => {
    const decided = (is_compliant: boolean) =>
      parseAttestation('system', {
        attestation_name: 'approval',
        type_name: 'decision',
        control: 'RCTL-043',
        attestation_data: { is_compliant },
      });
    assert.equal((decided(true) as { compliant: boolean }).compliant, true);
    assert.equal((decided(false) as { compliant: boolean }).compliant, false);
    assert.deepEqual(
      Object.keys(
        (parseAttestation('system', { attestation_name: 'a', type_name: 'other' }) as { errors: object })
          .errors,
      ).sort(),
      ['attestation_data', 'control', 'type_name'],
    );
  });

  it('without a template, follows the attestations made', () => {
    assert.equal(trailCompliance(view([begun]), null).status, 'INCOMPLETE');
    assert.equal(
      trailCompliance(view([begun, { type: 'attestation_reported', data: attestation('x', true) }]), null)
        .status,
      'COMPLIANT',
    );
    assert.equal(
      trailCompliance(view([begun, { type: 'attestation_reported', data: attestation('x', false) }]), null)
        .status,
      'NON-COMPLIANT',
    );
  });
});

describe('attestation types', () => {
  const ok = (type: Parameters<typeof parseAttestation>[0], body: Record<string, unknown>) => {
    const r = parseAttestation(type, { attestation_name: 'a', ...body });
    assert.ok(!('errors' in r), JSON.stringify(r));
    return r.compliant;
  };
  it('decides compliance per type', () => {
    assert.equal(ok('generic', {}), true);
    assert.equal(ok('generic', { is_compliant: false }), false);
    assert.equal(ok('junit', { junit_results: [{ name: 's', tests: 3, failures: 0, errors: 0 }] }), true);
    assert.equal(ok('junit', { junit_results: [{ name: 's', tests: 3, failures: 0, errors: 1 }] }), false);
    assert.equal(ok('snyk', { snyk_results: { vulnerabilities: [] } }), true);
    assert.equal(ok('snyk', { snyk_results: { vulnerabilities: [{ id: 'SNYK-1' }] } }), false);
    assert.equal(ok('pull_request', { pull_requests: [{ url: 'https://git/pr/1' }] }), true);
    assert.equal(ok('pull_request', { pull_requests: [] }), false);
    assert.equal(ok('jira', { jira_results: [{ issue_key: 'X-1', issue_exists: true }] }), true);
    assert.equal(
      ok('jira', {
        jira_results: [
          { issue_key: 'X-1', issue_exists: true },
          { issue_key: 'X-2', issue_exists: false },
        ],
      }),
      false,
    );
    // As the Kosli CLI sends them: issue_id and issue_url, no issue_key; none referenced is not compliant.
    const cliIssue = { issue_id: 'SHOP-7', issue_url: 'https://jira/browse/SHOP-7', issue_exists: true };
    assert.equal(ok('jira', { jira_results: [cliIssue] }), true);
    assert.equal(ok('jira', { jira_results: [] }), false);
    assert.equal(ok('pull_request', { git_provider: 'gitlab', pull_requests: null }), false);
    assert.equal(ok('sonar', { sonar_results: { status: 'SUCCESS', qualityGate: { status: 'OK' } } }), true);
    assert.equal(
      ok('sonar', { sonar_results: { status: 'SUCCESS', qualityGate: { status: 'ERROR' } } }),
      false,
    );
    assert.equal(ok('sonar', { sonar_results: { status: 'SUCCESS' } }), false);
  });
  it('names each bad field', () => {
    const r = parseAttestation('junit', {
      attestation_name: '-bad',
      junit_results: [{ name: 's', tests: -1 }],
      colour: 'red',
    });
    assert.ok('errors' in r);
    assert.deepEqual(Object.keys(r.errors).sort(), [
      'attestation_name',
      'colour',
      'junit_results[0].errors',
      'junit_results[0].failures',
      'junit_results[0].tests',
    ]);
  });
});
