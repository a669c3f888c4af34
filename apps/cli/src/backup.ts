import Database from 'better-sqlite3';
import { existsSync, statSync } from 'node:fs';
import type { Config } from '#des/platform';

/**
 * `backup <file>`: an online copy of the embedded log (SQLite's backup API:
 * a consistent snapshot, taken while the service goes on writing). Everything
 * else the service keeps is rebuilt from the log, but for the service key.
 */
export async function backup(config: Config, target: string): Promise<void> {
  if (config.eventStore.kind !== 'sqlite')
    throw new Error('the log is in KurrentDB: back it up with KurrentDB (see docs/operations.md)');
  if (existsSync(target)) throw new Error(`${target} exists: name a new file`);
  if (!existsSync(config.eventStore.path)) throw new Error(`no log at ${config.eventStore.path}`);
  const db = new Database(config.eventStore.path, { readonly: true, fileMustExist: true });
  try {
    await db.backup(target);
  } finally {
    db.close();
  }
  console.log(`log copied to ${target} (${statSync(target).size} bytes); keep the service key with it`);
}
