import { nowMicros } from '#des/event-store';
import type { Config } from '#des/platform';
import { cancellation, ChangeEvaluation, type EvaluationJobView, listEvaluationJobs } from '#des/evaluations';
import { withLog } from './with-log';

const CLI = { kind: 'system', name: 'cli' } as const;

/** `jobs list <org>`: the organization's evaluations not finished (from the log: any mode, service up or not). */
export async function listJobs(config: Config, org: string): Promise<void> {
  const jobs = await withLog(config, (events) => listEvaluationJobs(events, org));
  console.log(describeJobs(org, jobs, nowMicros()));
}

/**
 * `jobs cancel <org> <id>` / `jobs cancel <org> --all`: records each as
 * failed, "cancelled by an operator", through its decider (a finished one
 * appends nothing). A job still queued then finds it finished and runs
 * nothing; one running is not stopped, and what it finds records nothing.
 */
export async function cancelJobs(config: Config, org: string, which: { id: string } | 'all'): Promise<void> {
  const cancelled = await withLog(config, async (events, executor) => {
    const ids = which === 'all' ? (await listEvaluationJobs(events, org)).map((j) => j.id) : [which.id];
    const done: string[] = [];
    for (const id of ids) {
      const command = new ChangeEvaluation(
        org,
        id,
        cancellation(id),
        { org, actor: CLI },
        { awaitReadModels: false },
      );
      const executed = await executor.execute(
        command.stream,
        command.decider,
        command.command,
        command.metadata,
        command.options,
      );
      if (executed.events.some((e) => e.type === 'evaluation_failed')) done.push(id);
    }
    return done;
  });
  if (which !== 'all' && cancelled.length === 0)
    throw new Error(`'${org}' has no pending or running job ${which.id}`);
  for (const id of cancelled) console.log(`cancelled evaluation ${id}`);
  console.log(`${cancelled.length} job(s) of '${org}' cancelled`);
}

function describeJobs(org: string, jobs: EvaluationJobView[], now: number): string {
  if (jobs.length === 0) return `No pending or running jobs for '${org}'.`;
  const rows = jobs.map((j) => [j.id, j.kind, j.state, String(j.attempts), age(now - j.requestedAt)]);
  const header = ['ID', 'KIND', 'STATE', 'RUNS', 'AGE'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [`Jobs of '${org}' not finished (${jobs.length}):`, line(header), ...rows.map(line)].join('\n');
}

/** µs as the largest whole unit: 42s, 7m, 3h, 2d. */
function age(micros: number): string {
  const seconds = Math.max(0, Math.floor(micros / 1_000_000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}
