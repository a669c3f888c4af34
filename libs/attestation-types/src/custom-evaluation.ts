import Ajv, { ValidateFunction } from 'ajv';
import * as jq from 'jq-wasm';

const ajv = new Ajv({ allErrors: true, strict: false });
const compiled = new Map<string, ValidateFunction>();

/** A JSON schema's problems, or none. */
export function schemaProblems(schema: unknown): string | undefined {
  try {
    ajv.compile(schema as object);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * jq-wasm runs jq as an Emscripten program: a jq that fails "exits" by
 * setting process.exitCode (to 3 for a compile error), which would make the
 * service exit with that code long after. The code is put back.
 */
async function runJq(data: object, rule: string): Promise<unknown> {
  const exitCode = process.exitCode;
  try {
    return await jq.json(data, rule);
  } finally {
    process.exitCode = exitCode;
  }
}

/** A jq rule that does not compile (a runtime error on `{}` is fine: rules see real data later). */
export async function jqRuleProblem(rule: string): Promise<string | undefined> {
  try {
    await runJq({}, rule);
    return undefined;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return /compile error|syntax error/i.test(message)
      ? message.replace(/^Failed to execute JSON query: /, '')
      : undefined;
  }
}

export interface CustomVerdict {
  compliant: boolean;
  schema_errors: string[];
  rule_results: { rule: string; result: unknown; error?: string }[];
}

/** Compliant when the data matches the type's schema and every jq rule yields `true` (jq run by jq-wasm). */
export async function evaluateCustom(
  schema: Record<string, unknown>,
  rules: string[],
  data: unknown,
): Promise<CustomVerdict> {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(key, validate);
  }
  const matches = validate(data);
  const schema_errors = matches
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
  const rule_results: CustomVerdict['rule_results'] = [];
  for (const rule of rules) {
    try {
      rule_results.push({ rule, result: await runJq(data as object, rule) });
    } catch (error) {
      rule_results.push({
        rule,
        result: null,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return { compliant: matches && rule_results.every((r) => r.result === true), schema_errors, rule_results };
}
