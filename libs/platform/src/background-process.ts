import { DynamicModule, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import { ApiError, errorBody } from './api-error';
import { Config, loadConfig, opsPortOf, Role } from './config';
import { HealthChecks } from './health-checks';
import { PlatformModule } from './platform.module';
import { nestLogger, processLogger } from './process-logger';
import { assertWritableDataDir, listenError, onStopSignal, runMain } from './process-runner';
import { ShutdownState } from './shutdown-state';
import type { Upcaster } from '#des/event-store';
import type { Projection, Reaction } from '#des/projections';

/**
 * Runs a process without the API (projector, worker): the platform for
 * `role` plus the given modules, its probes and metrics on `DES_OPS_PORT`,
 * until SIGTERM/SIGINT, when it stops in order (see PlatformRuntime).
 */
export function runBackgroundProcess(
  role: Role,
  read: { projections: Projection[]; reactions: (config: Config) => Reaction[]; upcasters: Upcaster[] },
  imports: (Type | DynamicModule)[] = [],
): void {
  runMain(async () => {
    const config = loadConfig();
    assertWritableDataDir(config.dataDir);
    const logger = processLogger(config.logLevel, role);
    @Module({
      imports: [
        PlatformModule.forRoot({
          config,
          role,
          projections: read.projections,
          reactions: read.reactions(config),
          upcasters: read.upcasters,
        }),
        ...imports,
      ],
    })
    class BackgroundProcessModule {}
    logger.info(`starting the ${role} (${config.mode} mode)`);
    // Probes answer from the first moment: live, and not ready until the start (a catch-up, say) is done.
    const started: { checks?: HealthChecks } = {};
    const opsPort = opsPortOf(config, role);
    const ops =
      opsPort > 0 ? await serveOps(() => started.checks, config.host, opsPort, role, logger) : undefined;
    // Nest's context starts (and runs every start-up hook) as it is made.
    const app = await NestFactory.createApplicationContext(BackgroundProcessModule, {
      logger: nestLogger(logger),
    });
    started.checks = app.get(HealthChecks);
    onStopSignal(logger, async (signal) => {
      app.get(ShutdownState).begin();
      logger.info(`${signal}: stopping the ${role}; readiness fails from now on`);
      await app.close();
      if (ops) await new Promise<void>((resolve) => ops.close(() => resolve()));
    });
    logger.info(`${role} running`);
  });
}

/** `/health/live`, `/health/ready` and `/metrics` of a process that serves no API. */
async function serveOps(
  current: () => HealthChecks | undefined,
  host: string,
  port: number,
  role: Role,
  logger: Logger,
): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return answer(405, { message: 'Method not allowed' }, { Allow: 'GET, HEAD' });
    if (path === '/health/live') return answer(200, { status: 'ok' });
    const checks = current();
    if (!checks)
      return answer(
        503,
        { message: 'Service not ready', errors: { start: 'starting' } },
        { 'Retry-After': '5' },
      );
    if (path === '/health/ready')
      return void checks.ready().then(
        (body) => answer(200, body),
        (error: unknown) =>
          error instanceof ApiError
            ? answer(error.getStatus(), errorBody('Service not ready', error.errors), error.headers)
            : answer(500, errorBody('Internal server error')),
      );
    if (path === '/metrics')
      return void checks.prometheus(req.headers.authorization).then(
        ({ contentType, text }) => {
          res.writeHead(200, { 'Content-Type': contentType });
          res.end(text);
        },
        (error: unknown) =>
          error instanceof ApiError
            ? answer(error.getStatus(), errorBody(error.message), error.headers)
            : answer(500, errorBody('Internal server error')),
      );
    answer(404, errorBody('Not found'));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(listenError(error, `the ${role}'s ops`, host, port)));
    server.listen(port, host, () => resolve());
  });
  logger.info(`${role} probes and metrics on http://${host}:${port} (/health/live, /health/ready, /metrics)`);
  return server;
}
