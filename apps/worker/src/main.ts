import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadConfig, PlatformModule } from '../../../libs/platform/src';
import { allProjections } from '../../api/src/projections';
import { WorkerModule } from './worker.module';

/** `npm run start:worker`: consumes the job queues (BullMQ in server mode). */
async function main(): Promise<void> {
  @Module({
    imports: [
      PlatformModule.forRoot({ config: loadConfig(), role: 'worker', projections: allProjections }),
      WorkerModule.register(),
    ],
  })
  class WorkerProcessModule {}
  const app = await NestFactory.createApplicationContext(WorkerProcessModule, {
    logger: ['log', 'warn', 'error'],
  });
  app.enableShutdownHooks();
  await app.init();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
