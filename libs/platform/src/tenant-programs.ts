import { availableParallelism } from 'node:os';

/**
 * Budgets of the programs tenants give the service (custom attestation types'
 * jq rules and JSON schemas), run on a pool of worker threads
 * (docs/adr/0001-tenant-programs-bounded.md).
 */
export interface TenantProgramsConfig {
  /** Wall-clock budget of one jq rule on one attestation (`DES_RULE_BUDGET_MS`); over it: `timeout`. */
  ruleBudgetMs: number;
  /** Ceiling on a rule thread's WebAssembly memory, in MiB (`DES_RULE_MEMORY_MB`). */
  ruleMemoryMb: number;
  /** Worker threads running rules and schemas (`DES_RULE_THREADS`; default: one core left to the event loop, at most 4). */
  ruleThreads: number;
  /** Budget of compiling or applying one custom type's JSON schema (`DES_SCHEMA_BUDGET_MS`). */
  schemaBudgetMs: number;
  /**
   * Nice value of the threads running tenants' programs, rules, schemas and Rego policies alike
   * (`DES_PROGRAM_NICE`, 0–19; 0 turns it off): they yield the cores to serving requests (ADR 0005).
   */
  programNice: number;
}

export function tenantProgramsConfig(env: NodeJS.ProcessEnv): TenantProgramsConfig {
  return {
    ruleBudgetMs: Number(env.DES_RULE_BUDGET_MS ?? 200),
    ruleMemoryMb: Number(env.DES_RULE_MEMORY_MB ?? 128),
    ruleThreads: Number(env.DES_RULE_THREADS ?? Math.max(1, Math.min(4, availableParallelism() - 1))),
    schemaBudgetMs: Number(env.DES_SCHEMA_BUDGET_MS ?? 1000),
    programNice: Math.max(0, Math.min(19, Number(env.DES_PROGRAM_NICE ?? 10))),
  };
}
