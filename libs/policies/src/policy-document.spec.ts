import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readPolicy } from './policy-document';
import { PROVENANCE_RULES, SCHEMA_LINE } from './policies.testing';

const GOOD = `${SCHEMA_LINE}${PROVENANCE_RULES}  attestations:
    - name: dependency-scan
      type: snyk
      if: \${{ flow.tags.risk == "high" }}
    - name: "*"
      type: custom:coverage
      must_be_compliant: false
`;

describe('environment policy documents', () => {
  it('reads a policy with every key of the schema', () => {
    const read = readPolicy(GOOD);
    assert.ok('policy' in read, JSON.stringify(read));
    assert.equal(read.policy.artifacts?.attestations?.[1].type, 'custom:coverage');
  });

  it('names each bad key, missing key and bad type', () => {
    const read = readPolicy(`artifacts:
  provenance: { required: "yes", extra: 1 }
  attestations:
    - type: sonar
  colour: red
`);
    assert.ok('errors' in read);
    assert.deepEqual(read.errors, {
      _schema: 'is required',
      'artifacts.colour': 'is not allowed',
      'artifacts.provenance.extra': 'is not allowed',
      'artifacts.provenance.required': 'must be boolean',
      'artifacts.attestations[0].name': 'is required',
      'artifacts.attestations[0].type':
        'must be *, generic, junit, snyk, pull_request, jira or custom:<type name>',
    });
  });

  it('names each malformed if expression, and refuses text that is not YAML', () => {
    const read = readPolicy(`_schema: x
artifacts:
  trail-compliance:
    exceptions:
      - if: \${{ flow.name == }}
  attestations:
    - { name: a, type: junit, if: "\${{ eval('1') }}" }
`);
    assert.ok('errors' in read);
    assert.deepEqual(Object.keys(read.errors), [
      'artifacts.trail-compliance.exceptions[0].if',
      'artifacts.attestations[0].if',
    ]);
    assert.match(
      read.errors['artifacts.attestations[0].if'],
      /^not a valid expression: only exists\(\) and matches\(\)/,
    );
    const notYaml = readPolicy('_schema: [unclosed');
    assert.ok('errors' in notYaml);
    assert.match(notYaml.errors.policy_file, /^not valid YAML/);
  });
});
