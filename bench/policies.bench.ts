import { ArtifactFacts, judgeArtifact } from '#des/policies';
import { namedPolicy, PROVENANCE_RULES } from '#des/policies/testing';
import { runBenchmark, smoke } from './support/run';
import { percentile } from './support/http-client';

/** Environment policies (issue: governance): one snapshot of 500 running artifacts judged by 3 policies. */
const results: Record<string, unknown> = {};
const GOAL_P50_MS = 20;

const policy = (name: string, rules: string) => namedPolicy(name, `artifacts:\n${rules}`);
const policies = [
  namedPolicy('provenance', PROVENANCE_RULES),
  policy(
    'tests',
    `  attestations:\n    - name: unit-tests\n      type: junit\n    - name: scan\n      type: snyk\n      if: \${{ flow.tags.risk == "high" and not (flow.name in ["docs", "sandbox"]) }}\n`,
  ),
  policy(
    'review',
    `  attestations:\n    - name: "*"\n      type: pull_request\n      exceptions:\n        - if: \${{ exists(flow.tags.hotfix) }}\n`,
  ),
];
const snapshot: ArtifactFacts[] = Array.from({ length: 500 }, (_, i) => ({
  name: i % 50 === 0 ? `datadog/agent:${i}` : `registry.example/svc-${i}:1.${i}`,
  fingerprint: i.toString(16).padStart(64, '0'),
  flow:
    i % 50 === 0
      ? null
      : { name: `svc-${i % 40}`, tags: { risk: i % 3 === 0 ? 'high' : 'low', team: `t${i % 7}` } },
  trailCompliant: i % 50 === 0 ? null : i % 11 !== 0,
  attestations: [
    { name: 'unit-tests', type: 'junit', compliant: i % 13 !== 0 },
    { name: 'scan', type: 'snyk', compliant: i % 17 !== 0 },
    ...(i % 5 === 0 ? [] : [{ name: 'pr', type: 'pull_request', compliant: true }]),
  ],
}));

runBenchmark('policies', results, async () => {
  const runs = smoke ? 20 : 300;
  const samples: number[] = [];
  let compliant = 0;
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    compliant = snapshot.filter((facts) => judgeArtifact(policies, facts).compliant).length;
    samples.push(performance.now() - start);
  }
  const p50 = percentile(samples, 50);
  results.snapshot_500_artifacts_3_policies = {
    p50_ms: +p50.toFixed(2),
    p99_ms: +percentile(samples, 99).toFixed(2),
    goal_p50_ms: GOAL_P50_MS,
    compliant_artifacts: compliant,
    runs,
  };
  console.log(
    `judge a 500-artifact snapshot against 3 policies: p50 ${p50.toFixed(2)} ms (goal ≤ ${GOAL_P50_MS} ms), ` +
      `p99 ${percentile(samples, 99).toFixed(2)} ms; ${compliant}/500 compliant`,
  );
});
