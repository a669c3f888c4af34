/**
 * Size and count limits of a custom attestation type, checked before anything
 * is compiled (docs/adr/0001-tenant-programs-bounded.md).
 */
export const CUSTOM_TYPE_LIMITS = {
  /** Bytes of the JSON schema's JSON text. */
  schemaBytes: 64 * 1024,
  /** Objects, arrays and values in the schema (ajv's compile time grows with them). */
  schemaNodes: 2000,
  /** Objects and arrays inside one another in the schema. */
  schemaDepth: 32,
  /** jq rules of one type (also the body's own `ArrayMaxSize`). */
  rules: 50,
  /** Characters of one jq rule. */
  ruleLength: 4096,
} as const;

export type FieldErrors = Record<string, string>;

/** The schema's size, node count and depth against the limits; errors name `schema`. */
export function schemaLimitProblems(schema: unknown, limits = CUSTOM_TYPE_LIMITS): FieldErrors {
  const bytes = Buffer.byteLength(JSON.stringify(schema) ?? '', 'utf8');
  if (bytes > limits.schemaBytes)
    return { schema: `is ${bytes} bytes of JSON; a schema may be at most ${limits.schemaBytes}` };
  let nodes = 0;
  const pending: [unknown, number][] = [[schema, 1]];
  while (pending.length) {
    const [value, depth] = pending.pop()!;
    if (++nodes > limits.schemaNodes)
      return { schema: `has more than ${limits.schemaNodes} nodes (objects, arrays and values)` };
    if (value === null || typeof value !== 'object') continue;
    if (depth > limits.schemaDepth) return { schema: `nests deeper than ${limits.schemaDepth} levels` };
    for (const child of Object.values(value)) pending.push([child, depth + 1]);
  }
  return {};
}

/** The number and length of the rules against the limits; errors name `jq_rules` or the rule. */
export function ruleLimitProblems(rules: string[], limits = CUSTOM_TYPE_LIMITS): FieldErrors {
  if (rules.length > limits.rules) return { jq_rules: `a type has at most ${limits.rules} rules` };
  const errors: FieldErrors = {};
  rules.forEach((rule, i) => {
    if (rule.length > limits.ruleLength)
      errors[`jq_rules[${i}]`] = `is ${rule.length} characters; a rule may be at most ${limits.ruleLength}`;
  });
  return errors;
}

/** Keywords whose values are data, not schemas: a `pattern` inside them is not a pattern. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);

/**
 * Every regular expression of the schema (`pattern` values, `patternProperties`
 * keys) that `compile` refuses, by its field: `schema.properties.v.pattern`,
 * `schema.patternProperties["^a(?=b)"]`.
 */
export function patternProblems(schema: unknown, compile: (pattern: string) => void): FieldErrors {
  const errors: FieldErrors = {};
  const check = (field: string, pattern: string) => {
    try {
      compile(pattern);
    } catch (error) {
      errors[field] =
        `${JSON.stringify(pattern)} is not a supported regular expression (RE2 syntax: no backreferences or lookaround): ${(error as Error).message}`;
    }
  };
  const pending: [unknown, string][] = [[schema, 'schema']];
  while (pending.length) {
    const [node, path] = pending.pop()!;
    if (node === null || typeof node !== 'object') continue;
    for (const [key, value] of Object.entries(node)) {
      const field = Array.isArray(node)
        ? `${path}[${key}]`
        : /^[A-Za-z_$][\w$]*$/.test(key)
          ? `${path}.${key}`
          : `${path}[${JSON.stringify(key)}]`;
      if (!Array.isArray(node) && DATA_KEYWORDS.has(key)) continue;
      if (!Array.isArray(node) && key === 'pattern' && typeof value === 'string') check(field, value);
      else if (!Array.isArray(node) && key === 'patternProperties' && value && typeof value === 'object') {
        for (const [pattern, child] of Object.entries(value)) {
          const childField = `${field}[${JSON.stringify(pattern)}]`;
          check(childField, pattern);
          pending.push([child, childField]);
        }
      } else pending.push([value, field]);
    }
  }
  return errors;
}
