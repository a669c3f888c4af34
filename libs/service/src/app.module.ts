import { DynamicModule, Module, RequestMethod, Type } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { Logger as PinoRoot } from 'pino';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Projection } from '#des/projections';
import { Config, PlatformModule, QueueWorkersModule, Role, runs } from '#des/platform';
import { allProjections, allQueueConsumers, allReactions, allUpcasters, features } from './features';

export interface AppOptions {
  config: Config;
  role: Role;
  /** Feature modules besides the service's own (tests add fixtures here). */
  features?: Type[];
  /** Read models; defaults to every projection of the service. */
  projections?: Projection[];
  /** The process's logger (`processLogger`); made here at `LOG_LEVEL` when not given. */
  logger?: PinoRoot;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request id: the caller's X-Request-Id when sane, else a new one; echoed on the response. */
function requestId(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  res.setHeader('X-Request-Id', id);
  return id;
}

@Module({})
export class AppModule {
  static register(options: AppOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggerModule.forRoot({
          forRoutes: [{ path: '{*path}', method: RequestMethod.ALL }],
          pinoHttp: {
            ...(options.logger ? { logger: options.logger } : { level: options.config.logLevel }),
            genReqId: requestId,
            redact: ['req.headers.authorization', 'req.headers.cookie'],
            autoLogging: { ignore: (req) => /^\/(api\/v2\/)?(health|metrics)/.test(req.url ?? '') },
          },
        }),
        PlatformModule.forRoot({
          config: options.config,
          role: options.role,
          projections: options.projections ?? allProjections,
          reactions: allReactions(options.config),
          upcasters: allUpcasters,
          http: true,
        }),
        ...(runs(options.role, 'worker') ? [QueueWorkersModule.register(allQueueConsumers)] : []),
        ...features.map((f) => f.module),
        ...(options.features ?? []),
      ],
    };
  }
}
