import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { EventStore } from '#des/event-store';
import { CommandExecutor, type Config, EVENT_STORE, PlatformModule } from '#des/platform';
import { allProjections, allUpcasters } from '#des/service';

/** The log, and the command path, as the CLI reaches them (no read models, no queue). */
export async function withLog<T>(
  config: Config,
  run: (events: EventStore, executor: CommandExecutor) => Promise<T>,
): Promise<T> {
  @Module({
    imports: [
      PlatformModule.forRoot({ config, role: 'cli', projections: allProjections, upcasters: allUpcasters }),
    ],
  })
  class CliModule {}
  const app = await NestFactory.createApplicationContext(CliModule, { logger: ['error'] });
  try {
    return await run(app.get<EventStore>(EVENT_STORE), app.get(CommandExecutor));
  } finally {
    await app.close();
  }
}
