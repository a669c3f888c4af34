import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';

const run = promisify(execFile);

/**
 * Puts a process and everything it has started (each of their threads) on
 * Linux's idle scheduling policy (`chrt --idle`): they run on a core the
 * service's own threads leave free, and never take one from them. What they
 * start later inherits the policy. Unlike a nice value, it holds for
 * Chromium, which sets its own processes' nice values (to -8 for the browser
 * and 0 for a renderer in view) when it may, as root. Answers whether every
 * process took it (false where `chrt` is missing or refused).
 */
export async function scheduleWhenIdle(rootPid: number): Promise<boolean> {
  // A process forked between the walk and its parent's change keeps the old policy: walk again until a
  // pass finds no process not yet changed (each pass's changes are inherited by what forks after it).
  const changed = new Set<number>();
  let all = true;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const fresh = (await processTree(rootPid)).filter((pid) => !changed.has(pid));
    if (fresh.length === 0) return all;
    const results = await Promise.all(fresh.map(idle));
    for (const pid of fresh) changed.add(pid);
    all &&= results.every(Boolean);
  }
  return false;
}

const MAX_PASSES = 10;

/** One process on the idle policy (true also for one that ended meanwhile: nothing of it is left to run). */
function idle(pid: number): Promise<boolean> {
  return run('chrt', ['--all-tasks', '--idle', '--pid', '0', String(pid)]).then(
    () => true,
    () => !existsSync(`/proc/${pid}`),
  );
}

/** A process and its descendants, read from /proc (the root alone where there is no /proc). */
export async function processTree(rootPid: number): Promise<number[]> {
  let pids: string[];
  try {
    pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  } catch {
    return [rootPid];
  }
  const children = new Map<number, number[]>();
  const parents = await Promise.all(pids.map(parentOf));
  pids.forEach((pid, i) => {
    const parent = parents[i];
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), Number(pid)]);
  });
  const tree: number[] = [];
  for (const stack = [rootPid]; stack.length;) {
    const pid = stack.pop()!;
    tree.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return tree;
}

async function parentOf(pid: string): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // After the command's name, in parentheses (which may hold spaces): the state, then the parent's id.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined; // gone meanwhile
  }
}

/** A process's scheduling policy as `chrt --pid` names it (`SCHED_IDLE`, `SCHED_OTHER`…), for tests. */
export async function schedulingPolicy(pid: number): Promise<string | undefined> {
  try {
    const { stdout } = await run('chrt', ['--pid', String(pid)]);
    return /policy:\s*(\S+)/.exec(stdout)?.[1];
  } catch {
    return undefined;
  }
}
