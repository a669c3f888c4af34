import { DynamicModule, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadConfig, Role } from './config';
import { PlatformModule } from './platform.module';
import type { Projection, Reaction } from '#des/projections';

/**
 * Runs a process without HTTP (projector, worker): the platform for `role`
 * plus the given modules, until SIGTERM/SIGINT.
 */
export function runBackgroundProcess(
  role: Role,
  read: { projections: Projection[]; reactions: Reaction[] },
  imports: (Type | DynamicModule)[] = [],
): void {
  @Module({ imports: [PlatformModule.forRoot({ config: loadConfig(), role, ...read }), ...imports] })
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
