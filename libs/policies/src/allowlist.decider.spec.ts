import { describe, it } from 'node:test';
import { deciderSpec } from '#des/kernel/testing';
import { type AllowlistCommand, allowlistDecider, type AllowlistEvent } from './allowlist.decider';

const { given } = deciderSpec(allowlistDecider);
const fingerprint = 'a'.repeat(64);
const allow = (description: string): AllowlistCommand => ({
  kind: 'allow_artifact',
  environment: 'prod',
  fingerprint,
  artifact_name: 'shop:1',
  description,
});
const allowed = (description: string): AllowlistEvent => ({
  type: 'artifact_allowlisted',
  data: { environment: 'prod', fingerprint, artifact_name: 'shop:1', description },
});

describe('allowlist decider', () => {
  it('allows an artifact once; again with another reason records the new reason', () => {
    given()
      .when(allow('hotfix'))
      .then([allowed('hotfix')]);
    given(allowed('hotfix')).when(allow('hotfix')).then([]);
    given(allowed('hotfix'))
      .when(allow('approved by the CAB'))
      .then([allowed('approved by the CAB')]);
  });
});
