import { DynamicModule, Module, RequestMethod, Type } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { LoggerModule } from 'nestjs-pino';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Projection } from '../../../libs/projections/src';
import { Config, PlatformModule, Role, runs } from '../../../libs/platform/src';
import { WorkerModule } from '../../worker/src/worker.module';
import { allProjections, allReactions } from './projections';
import { AccountsModule } from './accounts/accounts.module';
import { EnvironmentsModule } from './environments/environments.module';
import { EvidenceModule } from './trails/evidence.module';
import { EvaluationsModule } from './evaluations/evaluations.module';
import { IdempotencyModule } from './idempotency/idempotency.module';

/** The product's feature modules. */
const productFeatures: Type[] = [
  AccountsModule,
  IdempotencyModule,
  EnvironmentsModule,
  EvidenceModule,
  EvaluationsModule,
];

export interface AppOptions {
  config: Config;
  role: Role;
  /** Feature modules besides the service's own (tests add fixtures here). */
  features?: Type[];
  /** Read models; defaults to every projection of the service. */
  projections?: Projection[];
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
            level: options.config.logLevel,
            genReqId: requestId,
            redact: ['req.headers.authorization', 'req.headers.cookie'],
            autoLogging: { ignore: (req) => /^\/(api\/v2\/)?(health|metrics)/.test(req.url ?? '') },
          },
        }),
        CqrsModule.forRoot(),
        PlatformModule.forRoot({
          config: options.config,
          role: options.role,
          projections: options.projections ?? allProjections,
          reactions: allReactions,
          http: true,
        }),
        ...(runs(options.role, 'worker') ? [WorkerModule.register()] : []),
        ...productFeatures,
        ...(options.features ?? []),
      ],
    };
  }
}
