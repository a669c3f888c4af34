import autocannon from 'autocannon';
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import type { TargetReady } from './load-target';

/** One path's figures with the load generator in its own process. */
export interface ElsewhereFigure {
  req_per_s: number;
  /** The server process's CPU time per request (all its threads), in microseconds. */
  server_cpu_us_per_req: number;
  /** The server process's CPU time over wall time: about 1 when it, not the load generator, is the bound. */
  server_cpu_load: number;
}

const reply = <T>(child: ChildProcess, key: string): Promise<T> =>
  new Promise((resolve, reject) => {
    const onMessage = (message: Record<string, unknown>) => {
      if (!(key in message)) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message[key] as T);
    };
    const onExit = (code: number | null) =>
      reject(new Error(`the load target exited (${code}) before ${key}`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });

/**
 * Starts a load target (a floor's name, or `service <dataDir>`) in a child
 * process and drives each path with autocannon from this one, as public
 * framework benchmarks do: on two cores, the server has one to itself.
 */
export async function measureFromAnotherProcess(
  target: string[],
  paths: (org: string) => Record<string, string>,
  seconds: number,
  connections: number,
): Promise<Record<string, ElsewhereFigure>> {
  const child = fork(join(__dirname, 'load-target.js'), target, { stdio: 'inherit' });
  try {
    const ready = await reply<TargetReady>(child, 'ready');
    const figures: Record<string, ElsewhereFigure> = {};
    for (const [label, path] of Object.entries(paths(ready.org))) {
      const url = `http://127.0.0.1:${ready.port}${path}`;
      const run = (options: { duration?: number; amount?: number }) =>
        autocannon({ url, connections, headers: ready.headers, ...options });
      await run({ amount: 2000 }); // warm-up
      child.send('cpu');
      const before = await reply<NodeJS.CpuUsage>(child, 'cpu');
      const started = Date.now();
      const result = await run({ duration: seconds });
      const wallUs = (Date.now() - started) * 1000;
      child.send('cpu');
      const after = await reply<NodeJS.CpuUsage>(child, 'cpu');
      if (result.non2xx > 0 || result.errors > 0)
        throw new Error(`${label}: ${result.non2xx} answers not 2xx, ${result.errors} errors`);
      const cpuUs = after.user + after.system - before.user - before.system;
      figures[label] = {
        req_per_s: Math.round(result.requests.total / (wallUs / 1e6)),
        server_cpu_us_per_req: +(cpuUs / result.requests.total).toFixed(1),
        server_cpu_load: +(cpuUs / wallUs).toFixed(2),
      };
    }
    child.send('close');
    await new Promise((resolve) => child.once('exit', resolve));
    return figures;
  } catch (error) {
    child.kill();
    throw error;
  }
}
