import type { TenantProgramsConfig } from '#des/platform';
import { CustomTypePool, ProgramError } from './custom-type-pool';
import { type FieldErrors, ruleLimitProblems, schemaLimitProblems } from './custom-type-limits';

export interface RuleResult {
  rule: string;
  result: unknown;
  /** What went wrong; `timeout: …` or `memory: …` when the rule ran over its budget or ceiling. */
  error?: string;
}

export interface CustomVerdict {
  compliant: boolean;
  schema_errors: string[];
  rule_results: RuleResult[];
}

export type CustomEvaluatorOptions = Pick<
  TenantProgramsConfig,
  'ruleBudgetMs' | 'ruleMemoryMb' | 'ruleThreads' | 'schemaBudgetMs' | 'programNice'
>;

/** A jq compile error, as jq words it (a runtime error on `{}` is fine: rules see real data later). */
const COMPILE_ERROR = /compile error|syntax error/i;

/** `timeout: the rule ran over its budget of 200 ms`: the kind first, so a client can tell it from a jq error. */
const describe = (error: unknown, what: string): string =>
  error instanceof ProgramError && error.kind !== 'error'
    ? `${error.kind}: ${what} ${error.message}`
    : error instanceof Error
      ? error.message
      : String(error);

/**
 * Custom attestation types' programs, bounded: the JSON schema (ajv, its
 * patterns on RE2) and the jq rules (jq-wasm) run on a pool of worker threads
 * within their budgets (docs/adr/0001-tenant-programs-bounded.md).
 */
export class CustomEvaluator {
  private readonly pool: CustomTypePool;

  constructor(private readonly options: CustomEvaluatorOptions) {
    this.pool = new CustomTypePool({
      threads: options.ruleThreads,
      memoryMb: options.ruleMemoryMb,
      nice: options.programNice,
    });
  }

  /**
   * A new type's problems by field: the limits, patterns RE2 cannot take, a
   * schema ajv cannot compile within its budget, rules that do not compile or
   * run over their budget on `{}`.
   */
  async problems(org: string, schema: unknown, rules: string[]): Promise<FieldErrors> {
    const limits = { ...schemaLimitProblems(schema), ...ruleLimitProblems(rules) };
    if (Object.keys(limits).length) return limits;
    const schemaChecked = this.pool
      .run(org, { kind: 'check-schema', schema: JSON.stringify(schema) }, this.options.schemaBudgetMs)
      .then(
        (found) => found as FieldErrors,
        (error: unknown) => ({ schema: describe(error, 'compiling the schema') }),
      );
    const rulesChecked = rules.map((rule, i) =>
      this.pool.run(org, { kind: 'jq', rule, input: '{}' }, this.options.ruleBudgetMs).then(
        () => ({}),
        (error: unknown): FieldErrors => {
          const problem =
            error instanceof ProgramError && error.kind !== 'error'
              ? `${describe(error, 'the rule')} (run on {})`
              : COMPILE_ERROR.test(describe(error, ''))
                ? describe(error, '')
                : undefined;
          return problem ? { [`jq_rules[${i}]`]: problem } : {};
        },
      ),
    );
    return Object.assign({}, await schemaChecked, ...(await Promise.all(rulesChecked)));
  }

  /** Compliant when the data matches the type's schema and every jq rule yields `true`. */
  async evaluate(
    org: string,
    schema: Record<string, unknown>,
    rules: string[],
    data: unknown,
  ): Promise<CustomVerdict> {
    const schemaText = JSON.stringify(schema);
    const validated = this.pool
      .run(
        org,
        { kind: 'validate', schema: schemaText, input: JSON.stringify(data) ?? 'null' },
        this.options.schemaBudgetMs,
      )
      .then(
        (errors) => errors as string[],
        (error: unknown) => [describe(error, 'applying the schema')],
      );
    // As jq-wasm took it: text as the JSON input itself, an object as its JSON.
    const input =
      typeof data === 'string'
        ? data
        : data !== null && typeof data === 'object'
          ? JSON.stringify(data)
          : undefined;
    const rule_results = await Promise.all(rules.map((rule) => this.rule(org, rule, input)));
    const schema_errors = await validated;
    return {
      compliant: schema_errors.length === 0 && rule_results.every((r) => r.result === true),
      schema_errors,
      rule_results,
    };
  }

  private async rule(org: string, rule: string, input: string | undefined): Promise<RuleResult> {
    if (input === undefined)
      return { rule, result: null, error: "Invalid argument: 'data' must be a non-null object or string" };
    try {
      return {
        rule,
        result: await this.pool.run(org, { kind: 'jq', rule, input }, this.options.ruleBudgetMs),
      };
    } catch (error) {
      return { rule, result: null, error: describe(error, 'the rule') };
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  /** Nest's shutdown hook: the threads are terminated with the app. */
  onModuleDestroy(): Promise<void> {
    return this.close();
  }
}
