import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadConfig, PlatformModule } from '../../../libs/platform/src';
import { allProjections } from '../../api/src/projections';

/**
 * `npm run start:projector`: applies every projection to the read models,
 * holding the projector lease so exactly one instance is active.
 */
async function main(): Promise<void> {
  @Module({
    imports: [
      PlatformModule.forRoot({ config: loadConfig(), role: 'projector', projections: allProjections }),
    ],
  })
  class ProjectorModule {}
  const app = await NestFactory.createApplicationContext(ProjectorModule, {
    logger: ['log', 'warn', 'error'],
  });
  app.enableShutdownHooks();
  await app.init();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
