import 'reflect-metadata';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OrganizationBootstrap } from '#des/accounts';
import { loadConfig } from '#des/platform';
import { createHttpApp } from '#des/service';
import { FLOOR_NAMES, type FloorName, startFloor } from './floors';
import { client } from './http-client';
import { podsOf } from './pods';

/**
 * A server for the load generator to drive from another process (forked by
 * `measureFromAnotherProcess`): a floor by its name, or the service on a data
 * directory with an environment `prod` of 60 reports. It says its port (and
 * the service its key and organization) over IPC, answers `cpu` with its CPU
 * time so far, and exits on `close`.
 */
export interface TargetReady {
  port: number;
  headers: Record<string, string>;
  org: string;
}

async function start(): Promise<{ ready: TargetReady; close: () => Promise<void> }> {
  const [what, dataDir] = process.argv.slice(2);
  if ((FLOOR_NAMES as readonly string[]).includes(what)) {
    const floor = await startFloor(what as FloorName);
    return { ready: { port: floor.port, headers: {}, org: '' }, close: () => floor.close() };
  }
  const app = await createHttpApp({
    config: loadConfig({
      DES_DATA_DIR: dataDir ?? mkdtempSync(join(tmpdir(), 'des-bench-target-')),
      LOG_LEVEL: 'silent',
    }),
    role: 'all',
  });
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as { port: number }).port;
  const org = `target${Date.now()}`;
  const key = (await app.get(OrganizationBootstrap).createOrganization(org, [], 10)).key;
  const headers = { authorization: `Bearer ${key}` };
  const http = client(port, headers);
  await http.call('PUT', `/api/v2/environments/${org}`, { name: 'prod', type: 'K8S' });
  for (let r = 0; r < 60; r++) {
    const res = await http.call('PUT', `/api/v2/environments/${org}/prod/report/K8S`, {
      artifacts: podsOf([r, r + 1, r + 2], 2),
    });
    if (res.status >= 300) throw new Error(`report ${r}: ${res.status} ${res.body}`);
  }
  http.close();
  return { ready: { port, headers, org }, close: () => app.close() };
}

start().then(
  ({ ready, close }) => {
    process.on('message', (message) => {
      if (message === 'cpu') process.send!({ cpu: process.cpuUsage() });
      if (message === 'close') void close().then(() => process.exit(0));
    });
    process.send!({ ready });
  },
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
