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
  name: 'coverage',
  description: 'Line coverage',
  schema,
  jqRules: ['.coverage >= 80'],
};
const created: AttestationTypeEvent = {
  type: 'attestation_type_created',
  data: { name: 'coverage', description: 'Line coverage', schema, jq_rules: ['.coverage >= 80'] },
};
const archive: AttestationTypeCommand = { kind: 'archive', name: 'coverage' };
const archived: AttestationTypeEvent = { type: 'attestation_type_archived', data: { name: 'coverage' } };

describe('attestation type decider', () => {
  it('creates a type once', () => {
    given().when(create).then([created]);
    given(created).when(create).thenError('invalid', 'Custom attestation type already exists');
    given(created, archived).when(create).thenError('invalid', 'Custom attestation type already exists');
  });

  it('archives an existing type once; an unknown type is 404', () => {
    given(created).when(archive).then([archived]);
    given(created, archived).when(archive).then([]);
    given().when(archive).thenError('not_found', 'Custom attestation type not found');
  });
});
