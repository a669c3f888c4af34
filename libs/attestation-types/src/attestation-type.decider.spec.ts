import { describe, it } from 'node:test';
import { deciderSpec } from '#des/kernel/testing';
import {
  AttestationTypeCommand,
  attestationTypeDecider,
  AttestationTypeEvent,
} from './attestation-type.decider';

const { given } = deciderSpec(attestationTypeDecider);
const schema = { type: 'object', required: ['coverage'] };
const create: AttestationTypeCommand = {
  kind: 'create',
  org: 'acme',
  name: 'coverage',
  description: 'Line coverage',
  schema,
  jqRules: ['.coverage >= 80'],
  summary: [],
};
const created: AttestationTypeEvent = {
  type: 'attestation_type_created',
  data: { name: 'coverage', description: 'Line coverage', schema, jq_rules: ['.coverage >= 80'] },
};
const archive: AttestationTypeCommand = { kind: 'archive', org: 'acme', name: 'coverage' };
const archived: AttestationTypeEvent = { type: 'attestation_type_archived', data: { name: 'coverage' } };
const stricter: AttestationTypeCommand = { ...create, jqRules: ['.coverage >= 90'] };
const versioned = (version: number, rules: string[]): AttestationTypeEvent => ({
  type: 'attestation_type_versioned',
  data: { ...created.data, jq_rules: rules, version },
});

describe('attestation type decider', () => {
  it('creates a type; the same definition again changes nothing', () => {
    given().when(create).then([created]);
    given(created).when(create).then([]);
    given(created, archived).when(create).then([]);
  });

  it('a create of an existing type with another definition is its next version', () => {
    given(created)
      .when(stricter)
      .then([versioned(2, ['.coverage >= 90'])]);
    given(created, versioned(2, ['.coverage >= 90']))
      .when(create)
      .then([versioned(3, ['.coverage >= 80'])]);
    const summary = [{ name: 'Coverage', expression: '.coverage' }];
    given(created)
      .when({ ...create, summary })
      .then([
        {
          type: 'attestation_type_versioned',
          data: { ...created.data, summary, version: 2 },
        },
      ]);
  });

  it('keeps the summary of a new type', () => {
    const summary = [{ name: 'Coverage', expression: '.coverage' }];
    given()
      .when({ ...create, summary })
      .then([{ type: 'attestation_type_created', data: { ...created.data, summary } }]);
  });

  it('a new version of an archived type takes attestations again', () => {
    given(created, archived, versioned(2, ['.coverage >= 90']))
      .when(archive)
      .then([archived]);
  });

  it('archives an existing type once; an unknown type is 404 in Kosli words', () => {
    given(created).when(archive).then([archived]);
    given(created, archived).when(archive).then([]);
    given()
      .when(archive)
      .thenError('not_found', "Custom attestation type 'coverage' does not exist for org 'acme'");
  });
});
