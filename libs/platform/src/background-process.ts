import { DynamicModule, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Config, loadConfig, Role } from './config';
import { PlatformModule } from './platform.module';
import type { Upcaster } from '#des/event-store';
import type { Projection, Reaction } from '#des/projections';

/**
 * Runs a process without HTTP (projector, worker): the platform for `role`
 * plus the given modules, until SIGTERM/SIGINT.
 */
export function runBackgroundProcess(
  role: Role,
  read: { projections: Projection[]; reactions: (config: Config) => Reaction[]; upcasters: Upcaster[] },
  imports: (Type | DynamicModule)[] = [],
): void {
  const config = loadConfig();
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
  (async () => {
    const app = await NestFactory.createApplicationContext(BackgroundProcessModule, {
      logger: ['log', 'warn', 'error'],
    });
    app.enableShutdownHooks();
    await app.init();
  })().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
