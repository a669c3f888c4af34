import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { YAML_LIMITS } from '#des/platform';
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
    - type: teleport
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
        'must be *, generic, junit, snyk, pull_request, jira, sonar, decision or custom:<type name>',
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

  it('refuses an upload over the YAML limits, naming the field; a stored version is read as it was accepted', () => {
    const keys = Array.from({ length: 3000 }, (_, i) => `# ${i}`).join('\n');
    const read = readPolicy(`${GOOD}${keys}\n`, YAML_LIMITS);
    assert.deepEqual(read, {
      errors: { policy_file: 'the policy has more than 2000 nodes (lines, items and keys)' },
    });
    assert.ok('policy' in readPolicy(`${GOOD}${keys}\n`));
    assert.throws(
      () => readPolicy(`${GOOD}# ${'x'.repeat(YAML_LIMITS.maxBytes)}\n`, YAML_LIMITS),
      (e: { getStatus(): number; getResponse(): unknown }) =>
        e.getStatus() === 413 &&
        JSON.stringify(e.getResponse()) ===
          JSON.stringify({
            message: 'Policy file exceeds the 256 KiB limit',
            errors: { policy_file: 'a policy is a YAML document of at most 256 KiB' },
          }),
    );
  });

  it('refuses a repeated key, and a matches() pattern RE2 cannot take, naming its field', () => {
    const repeated = readPolicy(`${SCHEMA_LINE}_schema: again\n`, YAML_LIMITS);
    assert.match(
      ('errors' in repeated && repeated.errors.policy_file) || '',
      /^not valid YAML: Map keys must be unique: "_schema"/,
    );
    const lookaround = readPolicy(
      `${SCHEMA_LINE}artifacts:\n  attestations:\n    - name: a\n      type: junit\n      if: \${{ matches(flow.name, "^x(?!y)") }}\n`,
      YAML_LIMITS,
    );
    assert.ok('errors' in lookaround);
    assert.match(lookaround.errors['artifacts.attestations[0].if'], /not a supported regular expression/);
  });
});
