import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AddressInfo } from 'node:net';
import { OrganizationBootstrap } from '#des/accounts';
import { type Config, loadConfig } from '#des/platform';
import { createHttpApp } from '#des/service';
import { client, type Client } from './http-client';

/**
 * A benchmark's configuration: silent, on its data directory, and with no
 * per-organization write rate: a benchmark measures the service, and its
 * set-up writes come faster than one organization may write (the rate has
 * tests of its own). `env` adds to it (server mode's engines, say).
 */
export function benchConfig(dataDir: string, env: NodeJS.ProcessEnv = {}): Config {
  return loadConfig({ DES_DATA_DIR: dataDir, LOG_LEVEL: 'silent', DES_ORG_WRITES_PER_SECOND: '0', ...env });
}

/**
 * The service, embedded, on its data directory and a free loopback port,
 * with an organization `bench` and a client presenting its admin key.
 */
export async function startBenchService(
  dataDir: string,
): Promise<{ app: NestExpressApplication; port: number; key: string; http: Client }> {
  const app = await createHttpApp({
    config: benchConfig(dataDir),
    role: 'all',
  });
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as AddressInfo).port;
  const key = (await app.get(OrganizationBootstrap).createOrganization('bench', [], 10)).key;
  return { app, port, key, http: client(port, { authorization: `Bearer ${key}` }) };
}

/** A call that must succeed: its answer, or an error naming the call and what it answered. */
export async function ok(http: Client, method: string, path: string, body?: unknown) {
  const res = await http.call(method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.body.slice(0, 300)}`);
  return res;
}
