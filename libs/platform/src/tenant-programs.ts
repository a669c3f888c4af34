import { availableParallelism } from 'node:os';
import { integer, readSettings } from './settings';

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
  /** Threads parsing tenants' YAML documents, policies and flow templates (`DES_YAML_THREADS`). */
  yamlThreads: number;
  /** Wall-clock budget of parsing one YAML document (`DES_YAML_BUDGET_MS`); over it: 400 naming it. */
  yamlBudgetMs: number;
  /** Ceiling on a YAML thread's heap, in MiB (`DES_YAML_HEAP_MB`); over it: 400 naming it. */
  yamlHeapMb: number;
}

export const TENANT_PROGRAM_SETTINGS = {
  ruleBudgetMs: integer('DES_RULE_BUDGET_MS', 200, 'budget of one jq rule on one attestation', { min: 1 }),
  ruleMemoryMb: integer('DES_RULE_MEMORY_MB', 128, 'jq memory per thread, in MiB', { min: 16 }),
  ruleThreads: integer(
    'DES_RULE_THREADS',
    Math.max(1, Math.min(4, availableParallelism() - 1)),
    "threads running tenants' jq rules and JSON schemas",
    { min: 1, max: 64, shownDefault: 'cores − 1 (1–4)' },
  ),
  schemaBudgetMs: integer(
    'DES_SCHEMA_BUDGET_MS',
    1000,
    "budget of compiling or applying one custom type's JSON schema",
    {
      min: 1,
    },
  ),
  programNice: integer(
    'DES_PROGRAM_NICE',
    10,
    "CPU nice value of the threads running tenants' rules, schemas and policies (0: as the process)",
    { min: 0, max: 19 },
  ),
  yamlThreads: integer(
    'DES_YAML_THREADS',
    Math.max(1, Math.min(2, availableParallelism() - 1)),
    "threads parsing tenants' YAML documents (policies, flow templates)",
    { min: 1, max: 16, shownDefault: 'cores − 1 (1–2)' },
  ),
  yamlBudgetMs: integer('DES_YAML_BUDGET_MS', 1000, 'budget of parsing one YAML document', { min: 1 }),
  yamlHeapMb: integer('DES_YAML_HEAP_MB', 64, 'heap of a thread parsing YAML documents, in MiB', { min: 16 }),
};

export function tenantProgramsConfig(env: NodeJS.ProcessEnv): TenantProgramsConfig {
  return readSettings(TENANT_PROGRAM_SETTINGS, env);
}
