import type { ArtifactData, AttestationData, TrailData } from './trail.events';

/** One trail, the artifact it built and attestations on it: the trails specs' history. */
export const fp = 'a'.repeat(64);

export const trail: TrailData = {
  flow: 'backend',
  name: 'main-1',
  description: '',
  git_commit_info: { sha1: 'abc' },
  repo_info: null,
  origin_url: null,
  user_data: {},
};

export const attestation = (
  name: string,
  compliant: boolean,
  artifact: string | null = null,
): AttestationData => ({
  id: name,
  name,
  type: 'generic',
  compliant,
  artifact_fingerprint: artifact,
  description: '',
  origin_url: null,
  user_data: {},
  evidence: {},
});

export const artifactData: ArtifactData = {
  fingerprint: fp,
  filename: 'backend:1',
  git_commit: 'abc',
  git_commit_info: null,
  build_url: null,
  commit_url: null,
  repo_info: null,
  template_reference_name: 'backend',
};
