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

/** Every rule of every policy, applied to one artifact (an artifact with no policy to judge it is compliant). */
export function judgeArtifact(policies: NamedPolicy[], facts: ArtifactFacts): Decision {
  const context: ExpressionContext = {
    flow: facts.flow,
    artifact: { name: facts.name, fingerprint: facts.fingerprint },
  };
  const reasons: string[] = [];
  for (const { name, policy } of policies) {
    const rules = policy.artifacts ?? {};
    if (rules.provenance?.required && !facts.flow && !excepted(rules.provenance.exceptions, context))
      reasons.push(`${name}: no trail reported this artifact (provenance required)`);
    const trailRule = rules['trail-compliance'];
    if (trailRule?.required && facts.trailCompliant !== true && !excepted(trailRule.exceptions, context))
      reasons.push(
        facts.trailCompliant === null
          ? `${name}: no trail to be compliant (trail compliance required)`
          : `${name}: its trail is not compliant (trail compliance required)`,
      );
    for (const rule of rules.attestations ?? []) {
      if (rule.if !== undefined && !holds(rule.if, context)) continue;
      if (excepted(rule.exceptions, context)) continue;
      const found = facts.attestations.filter((a) => matches(rule, a));
      const label = `attestation ${rule.name === '*' ? 'of any name' : `'${rule.name}'`} of type ${rule.type}`;
      if (found.length === 0) reasons.push(`${name}: ${label} is missing`);
      else if ((rule.must_be_compliant ?? true) && !found.some((a) => a.compliant))
        reasons.push(`${name}: ${label} is not compliant`);
    }
  }
  return { compliant: reasons.length === 0, reasons };
}
