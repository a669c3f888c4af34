import type { Tags } from '#des/kernel';
import type { AttestationRule, EnvironmentPolicy, Exception } from './policy-document';
import { ExpressionContext, parseExpression, PolicyExpression } from './policy-expression';

/** What is known of one running artifact when its environment's policies judge it. */
export interface ArtifactFacts {
  name: string;
  fingerprint: string;
  /** The flow of the trail that reported the artifact; null without provenance. */
  flow: { name: string; tags: Tags } | null;
  /** That trail's compliance; null without provenance. */
  trailCompliant: boolean | null;
  /** The attestations on the artifact and on its trail: `type` is `custom:<name>` for custom types. */
  attestations: { name: string; type: string; compliant: boolean }[];
}

/**
 * An attestation's type as a policy names it: `custom:<name>` for a custom
 * type, `decision` for a decision (`system` on the wire), else its own.
 */
export function policyAttestationType(a: { type: string; evidence: Record<string, unknown> }): string {
  if (a.type === 'custom') return `custom:${String(a.evidence.type_name)}`;
  return a.type === 'system' ? 'decision' : a.type;
}

/** One policy's verdict on one artifact, with a reason per broken rule. */
export interface Decision {
  compliant: boolean;
  reasons: string[];
}

export interface NamedPolicy {
  name: string;
  policy: EnvironmentPolicy;
}

const parsed = new Map<string, PolicyExpression>();
/** Expressions were checked at upload; kept parsed, since one policy judges many artifacts. */
function holds(source: string, context: ExpressionContext): boolean {
  let expression = parsed.get(source);
  if (!expression) {
    expression = parseExpression(source);
    if (parsed.size > 10_000) parsed.clear();
    parsed.set(source, expression);
  }
  return expression.evaluate(context);
}

const excepted = (exceptions: Exception[] | undefined, context: ExpressionContext) =>
  (exceptions ?? []).some((e) => holds(e.if, context));

const matches = (rule: AttestationRule, a: ArtifactFacts['attestations'][number]) =>
  (rule.name === '*' || rule.name === a.name) && (rule.type === '*' || rule.type === a.type);

/** Why a rule is not satisfied, in the Kosli server's terms (the Kosli CLI prints them). */
export type Resolution = {
  type: 'missing_provenance' | 'non_compliant_in_trail' | 'missing_attestation' | 'non_compliant_attestation';
  context: { for_control?: string };
};

/** One rule of a policy applied to one artifact. */
export interface RuleEvaluation {
  rule: {
    type: 'provenance' | 'trail-compliance' | 'attestation';
    definition: Record<string, unknown>;
  };
  /** Its `if` does not hold, or an exception does: the rule does not apply. */
  ignored: boolean;
  satisfied: boolean;
  resolutions: Resolution[];
  /** Why not, in words; absent when satisfied or ignored. */
  reason?: string;
}

/** One policy's verdict on one artifact, rule by rule. */
export interface PolicyEvaluation {
  policy_name: string;
  status: 'COMPLIANT' | 'NON-COMPLIANT';
  rule_evaluations: RuleEvaluation[];
}

/** Each rule of one policy, applied to one artifact. */
export function evaluatePolicy({ name, policy }: NamedPolicy, facts: ArtifactFacts): PolicyEvaluation {
  const context: ExpressionContext = {
    flow: facts.flow,
    artifact: { name: facts.name, fingerprint: facts.fingerprint },
  };
  const rules = policy.artifacts ?? {};
  const evaluations: RuleEvaluation[] = [];
  const failed = (reason: string, resolution: Resolution) => ({
    satisfied: false,
    resolutions: [resolution],
    reason: `${name}: ${reason}`,
  });
  const passed = { satisfied: true, resolutions: [] };
  if (rules.provenance?.required) {
    const ignored = excepted(rules.provenance.exceptions, context);
    evaluations.push({
      rule: { type: 'provenance', definition: { required: true } },
      ignored,
      ...(ignored || facts.flow
        ? passed
        : failed('no trail reported this artifact (provenance required)', {
            type: 'missing_provenance',
            context: {},
          })),
    });
  }
  const trailRule = rules['trail-compliance'];
  if (trailRule?.required) {
    const ignored = excepted(trailRule.exceptions, context);
    evaluations.push({
      rule: { type: 'trail-compliance', definition: { required: true } },
      ignored,
      ...(ignored || facts.trailCompliant === true
        ? passed
        : failed(
            facts.trailCompliant === null
              ? 'no trail to be compliant (trail compliance required)'
              : 'its trail is not compliant (trail compliance required)',
            { type: 'non_compliant_in_trail', context: {} },
          )),
    });
  }
  for (const rule of rules.attestations ?? []) {
    const ignored = (rule.if !== undefined && !holds(rule.if, context)) || excepted(rule.exceptions, context);
    const definition = {
      name: rule.name,
      type: rule.type,
      ...(rule.for_control ? { for_control: rule.for_control } : {}),
    };
    const found = facts.attestations.filter((a) => matches(rule, a));
    const label = `attestation ${rule.name === '*' ? 'of any name' : `'${rule.name}'`} of type ${rule.type}`;
    const resolutionContext = rule.for_control ? { for_control: rule.for_control } : {};
    evaluations.push({
      rule: { type: 'attestation', definition },
      ignored,
      ...(ignored
        ? passed
        : found.length === 0
          ? failed(`${label} is missing`, { type: 'missing_attestation', context: resolutionContext })
          : (rule.must_be_compliant ?? true) && !found.some((a) => a.compliant)
            ? failed(`${label} is not compliant`, {
                type: 'non_compliant_attestation',
                context: resolutionContext,
              })
            : passed),
    });
  }
  const compliant = evaluations.every((e) => e.satisfied);
  return {
    policy_name: name,
    status: compliant ? 'COMPLIANT' : 'NON-COMPLIANT',
    rule_evaluations: evaluations,
  };
}

/** Every rule of every policy, applied to one artifact (an artifact with no policy to judge it is compliant). */
export function judgeArtifact(policies: NamedPolicy[], facts: ArtifactFacts): Decision {
  const reasons = policies.flatMap((p) =>
    evaluatePolicy(p, facts).rule_evaluations.flatMap((e) => (e.reason ? [e.reason] : [])),
  );
  return { compliant: reasons.length === 0, reasons };
}
