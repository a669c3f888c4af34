import type { FlowTemplate } from '#des/flows';
import { type AttestationView, trailCompliance, type TrailView } from './trail.view';

/** People named by an attestation's pull requests: who opened them, who approved them. */
export interface PullRequestPeople {
  authors: string[];
  approvers: string[];
}

const nameOf = (who: unknown): string | undefined => {
  if (typeof who === 'string') return who || undefined;
  if (who && typeof who === 'object') {
    const w = who as Record<string, unknown>;
    const name = w.username ?? w.login ?? w.name ?? w.email;
    return typeof name === 'string' && name ? name : undefined;
  }
  return undefined;
};

const unique = (names: (string | undefined)[]) =>
  [...new Set(names.filter((n): n is string => n !== undefined))].sort();

/** The authors and approvers of a pull-request attestation's pull requests (none for other types). */
export function pullRequestPeople(a: Pick<AttestationView, 'type' | 'evidence'>): PullRequestPeople {
  if (a.type !== 'pull_request') return { authors: [], approvers: [] };
  const prs = (a.evidence.pull_requests ?? []) as Record<string, unknown>[];
  return {
    authors: unique(prs.map((pr) => nameOf(pr.author))),
    approvers: unique(prs.flatMap((pr) => (Array.isArray(pr.approvers) ? pr.approvers.map(nameOf) : []))),
  };
}

const count = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
const sum = (rows: Record<string, unknown>[], field: string) =>
  rows.reduce((n, r) => n + (typeof r[field] === 'number' ? (r[field] as number) : 0), 0);

/**
 * What an attestation's evidence says, in a line or two: junit counts, scan
 * counts, pull requests with their authors and approvers, issues, and each
 * attached file with its SHA-256.
 */
export function evidenceSummary(a: AttestationView): string[] {
  const lines: string[] = [];
  const e = a.evidence;
  switch (a.type) {
    case 'junit': {
      const suites = (e.junit_results ?? []) as Record<string, unknown>[];
      const tests = suites.reduce((n, s) => n + (Number(s.tests ?? s.total) || 0), 0);
      lines.push(
        `${count(tests, 'test')} in ${count(suites.length, 'suite')}: ${count(sum(suites, 'failures'), 'failure')}, ` +
          `${count(sum(suites, 'errors'), 'error')}, ${sum(suites, 'skipped').toLocaleString('en')} skipped`,
      );
      break;
    }
    case 'snyk': {
      const results = (e.snyk_results ?? {}) as {
        vulnerabilities?: unknown[];
        results?: Record<string, unknown>[];
      };
      const scans = results.results ?? [];
      const listed = results.vulnerabilities?.length ?? 0;
      lines.push(
        `${count(listed + sum(scans, 'high_count') + sum(scans, 'medium_count') + sum(scans, 'low_count'), 'finding')}` +
          (scans.length
            ? ` (high ${sum(scans, 'high_count')}, medium ${sum(scans, 'medium_count')}, low ${sum(scans, 'low_count')})`
            : ''),
      );
      break;
    }
    case 'pull_request': {
      const prs = (e.pull_requests ?? []) as Record<string, unknown>[];
      if (prs.length === 0) lines.push('no pull request');
      for (const pr of prs) {
        const approvers = Array.isArray(pr.approvers) ? unique(pr.approvers.map(nameOf)) : [];
        lines.push(
          `${String(pr.url ?? '')}${pr.state ? ` (${String(pr.state)})` : ''}` +
            ` by ${nameOf(pr.author) ?? 'unknown'}; approved by ${approvers.length ? approvers.join(', ') : 'no one'}`,
        );
      }
      break;
    }
    case 'jira': {
      const issues = (e.jira_results ?? []) as Record<string, unknown>[];
      lines.push(
        issues.length
          ? issues
              .map((i) => `${String(i.issue_key ?? i.issue_id)}${i.issue_exists ? '' : ' (not found)'}`)
              .join(', ')
          : 'no issue referenced',
      );
      break;
    }
    case 'custom':
      lines.push(`custom type ${String(e.type_name ?? '')}`);
      break;
    case 'sonar': {
      const results = (e.sonar_results ?? {}) as { qualityGate?: { status?: string }; revision?: string };
      lines.push(`quality gate ${results.qualityGate?.status ?? 'not reported'}`);
      break;
    }
    case 'system':
      lines.push(
        `decision on control ${String(e.control ?? '')}: ${a.compliant ? 'compliant' : 'non-compliant'}`,
      );
      break;
    case 'override': {
      const was = a.overridden;
      lines.push(
        `overrides ${String(e.original_attestation_type ?? '')}` +
          (was ? ` (was ${was.compliant ? 'compliant' : 'non-compliant'})` : ' (none attested)') +
          `: ${String(e.reason ?? '')}`,
      );
      break;
    }
    case 'generic':
      break;
  }
  for (const file of a.attachments ?? []) {
    lines.push(`${file.filename} (${count(file.size, 'byte')}), SHA-256 ${file.sha256}`);
  }
  return lines.filter((l) => l !== '');
}

/** An attestation as evidence: its type, compliance, when it was recorded, and for pull requests who opened and approved them. */
export interface AttestationEvidence {
  type: string;
  compliant: boolean;
  recorded_at: number;
  authors?: string[];
  approvers?: string[];
}

const asEvidence = (a: AttestationView): AttestationEvidence => ({
  type: a.type === 'custom' ? `custom:${String(a.evidence.type_name)}` : a.type,
  compliant: a.compliant,
  recorded_at: a.reported_at,
  ...(a.type === 'pull_request' ? pullRequestPeople(a) : {}),
});

const byName = (attestations: Record<string, AttestationView>) =>
  Object.fromEntries(
    Object.values(attestations)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((a) => [a.name, asEvidence(a)]),
  );

/** What a trail holds as evidence for one of its artifacts: the trail's attestations and the artifact's, and what the template lacks. */
export interface ArtifactEvidence {
  trail: Record<string, AttestationEvidence>;
  artifact: Record<string, AttestationEvidence>;
  missing: string[];
}

/**
 * The evidence a trail holds for one of its artifacts (by fingerprint): the
 * trail's attestations and the artifact's, by name, and what the flow's
 * template requires of the two that the trail lacks.
 */
export function artifactEvidence(
  view: TrailView,
  template: FlowTemplate | null,
  fingerprint: string,
): ArtifactEvidence {
  return trailEvidence(view, template)(fingerprint);
}

/**
 * `artifactEvidence` for many artifacts of one trail: what is the trail's
 * (its compliance, its attestations by name) is worked out once, and each
 * artifact found by its fingerprint, so a population of thousands of changes
 * on a trail of thousands of artifacts costs their sum, not their product.
 * The answers share the trail's part: read them, never change them.
 */
export function trailEvidence(
  view: TrailView,
  template: FlowTemplate | null,
): (fingerprint: string) => ArtifactEvidence {
  const missing = trailCompliance(view, template).missing;
  const trail = byName(view.attestations);
  const first = new Map<string, (typeof view.artifacts)[number]>();
  for (const a of view.artifacts) if (!first.has(a.fingerprint)) first.set(a.fingerprint, a);
  const ofArtifact = new Map<string, ArtifactEvidence>();
  return (fingerprint) => {
    const known = ofArtifact.get(fingerprint);
    if (known) return known;
    const artifact = first.get(fingerprint);
    const ref = artifact?.template_reference_name;
    const answer = {
      trail,
      artifact: byName(artifact?.attestations ?? {}),
      missing: missing.filter(
        (m) =>
          !m.startsWith('artifact/') ||
          (ref !== null && ref !== undefined && m.startsWith(`artifact/${ref}/`)),
      ),
    };
    ofArtifact.set(fingerprint, answer);
    return answer;
  };
}
