import { accessSync, constants, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { causeOf } from './engine-watch';
import { ConfigError } from './settings';

/** sysexits.h: a configuration error. */
export const EX_CONFIG = 78;
/** sysexits.h: a file or directory cannot be created. */
export const EX_CANTCREAT = 73;

/** A start that cannot go on for a reason an operator fixes: one line, an exit code, no stack. */
export class StartupError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'StartupError';
  }
}

/**
 * Runs a process's start. A wrong setting is one line per variable on stderr
 * and exit code 78; a start-up error (data directory, port) one line and its
 * code; anything else is a bug, printed whole.
 */
export function runMain(start: () => Promise<void>): void {
  start().catch(exitWith);
}

function exitWith(error: unknown): never {
  if (error instanceof ConfigError) {
    for (const problem of error.problems) process.stderr.write(`configuration error: ${problem}\n`);
    process.exit(EX_CONFIG);
  }
  if (error instanceof StartupError) {
    process.stderr.write(`cannot start: ${error.message}\n`);
    process.exit(error.exitCode);
  }
  console.error(error);
  process.exit(1);
}

/** The data directory exists (made if need be) and this process can write in it. */
export function assertWritableDataDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    const probe = join(dir, `.write-probe-${process.pid}`);
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
  } catch (error) {
    throw new StartupError(
      `data directory ${dir} (DES_DATA_DIR) is not writable: ${causeOf(error)}`,
      EX_CANTCREAT,
    );
  }
}

/** A listen that failed, as the operator needs it said. */
export function listenError(error: unknown, what: string, host: string, port: number): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return new StartupError(`${what} port ${port} on ${host} is in use by another process (EADDRINUSE)`);
  if (code === 'EACCES')
    return new StartupError(`${what} port ${port} on ${host} may not be opened by this user (EACCES)`);
  if (code === 'EADDRNOTAVAIL')
    return new StartupError(`${what} address ${host} is not one of this machine's (EADDRNOTAVAIL)`);
  return error as Error;
}

/**
 * On SIGTERM or SIGINT, runs `stop` once, then exits 0 (1 if it failed). A
 * second signal while stopping exits at once (the operator insists).
 */
export function onStopSignal(logger: Logger, stop: (signal: NodeJS.Signals) => Promise<void>): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn(`${signal} again while stopping: exiting now`);
      process.exit(1);
    }
    stopping = true;
    // A client library may still throw from a connection being closed (BullMQ's blocking Redis
    // connection, closed while it was being made): said, and the stop goes on to its end.
    process.on('uncaughtException', (error) =>
      logger.warn({ err: error }, `while stopping: ${error.message}`),
    );
    stop(signal).then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'stopping failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}
