import { DynamicModule, Module, Type } from '@nestjs/common';
import type { Logger as PinoRoot } from 'pino';
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

@Module({})
export class AppModule {
  static register(options: AppOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
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
