import type { Logger as PinoRoot } from 'pino';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Type } from '@nestjs/common';
import type { Projection } from '#des/projections';
import { createHttpApp } from '#des/service';
import { Config, loadConfig, Role } from '#des/platform';
import request from 'supertest';
import { mongoEngine, redisEngine, uniqueName } from './engines';
import './answers-match-the-document';
import { FEATURES, Feature, OrganizationBootstrap } from '#des/accounts';

export type Mode = 'embedded' | 'server';

export interface TestApp {
  app: NestExpressApplication;
  server: ReturnType<NestExpressApplication['getHttpServer']>;
  config: Config;
  /** The organization bootstrapped for the test (absent with `bootstrap: false`). */
  org: string;
  /** Its admin key, and the header that presents it. */
  key: string;
  auth: { Authorization: string };
  /** supertest with the admin key preset. */
  http: TestAgent;
  close(): Promise<void>;
}

type TestAgent = ReturnType<typeof request.agent>;

/**
 * Environment for a mode: embedded = SQLite file + memory + in-process jobs;
 * server = SQLite file + MongoDB-wire + BullMQ on Redis (fresh database and
 * queue prefix per call).
 */
export async function modeEnv(mode: Mode, extra: NodeJS.ProcessEnv = {}): Promise<NodeJS.ProcessEnv> {
  const dataDir = mkdtempSync(join(tmpdir(), 'des-e2e-'));
  const env: NodeJS.ProcessEnv = { DES_DATA_DIR: dataDir, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' };
  if (mode === 'server') {
    env.MONGODB_URL = (await mongoEngine()).url;
    env.MONGODB_DATABASE = uniqueName('e2e');
    env.REDIS_URL = (await redisEngine()).url;
    env.DES_QUEUE_PREFIX = uniqueName('e2e');
  }
  return { ...env, ...extra };
}

export async function startApp(options: {
  mode: Mode;
  role?: Role;
  features?: Type[];
  /** Read models; defaults to every projection of the service. */
  projections?: Projection[];
  env?: NodeJS.ProcessEnv;
  /** Create organization `org` (default `acme`, every feature) and its admin key; default true. */
  bootstrap?: boolean;
  org?: string;
  features_enabled?: Feature[];
  maxUsers?: number;
  /** With `bootstrap: false`: a key minted before (a restarted app's organization), for `http`. */
  key?: string;
  /** The process's logger (a test reading the lines gives its own). */
  logger?: PinoRoot;
}): Promise<TestApp> {
  const config = loadConfig(options.env ?? (await modeEnv(options.mode)));
  const app = await createHttpApp({
    config,
    role: options.role ?? 'all',
    features: options.features,
    projections: options.projections,
    logger: options.logger,
  });
  await app.init();
  const org = options.org ?? 'acme';
  let key = options.key ?? '';
  if (options.bootstrap ?? true) {
    const created = await app
      .get(OrganizationBootstrap)
      .createOrganization(org, options.features_enabled ?? [...FEATURES], options.maxUsers ?? 20);
    key = created.key;
  }
  const auth = { Authorization: `Bearer ${key}` };
  const server = app.getHttpServer();
  return {
    app,
    server,
    config,
    org,
    key,
    auth,
    http: request.agent(server).set(auth),
    close: () => app.close(),
  };
}
