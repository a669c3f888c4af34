import type { LoggerService } from '@nestjs/common';
import { Logger as NestPinoLogger, PinoLogger } from 'nestjs-pino';
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { Role } from './config';
import { currentRequestId } from './request-context';

/**
 * The one logger of a process, whatever its role: JSON lines on stdout at
 * `LOG_LEVEL`, or readable text when stdout is a terminal. Written
 * synchronously, so the lines of a start-up that is still under way (a long
 * catch-up) and of a shutdown appear when they happen.
 */
export function processLogger(level: string, role: Role | string): Logger {
  const options = {
    level,
    base: { role, pid: process.pid },
    // A line written while serving a request names it (its completion line names it itself).
    mixin: (fields: object) => {
      const id = currentRequestId();
      return id === undefined || 'req' in fields ? {} : { req_id: id };
    },
  };
  if (process.stdout.isTTY)
    return pino(
      options,
      pretty({
        sync: true,
        colorize: true,
        ignore: 'pid,hostname,role,context',
        messageFormat: '{if context}{context}: {end}{msg}',
      }),
    );
  return pino(options, pino.destination({ fd: 1, sync: true }));
}

/** Nest's own start-up chatter (a line per module and route): debug, not info. */
const FRAMEWORK_CHATTER = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
]);

class QuietNestLogger extends NestPinoLogger {
  override log(message: unknown, ...rest: unknown[]): void {
    const context = rest[rest.length - 1];
    if (typeof context === 'string' && FRAMEWORK_CHATTER.has(context)) return super.debug(message, ...rest);
    super.log(message, ...rest);
  }
}

/** The same logger as Nest's logger, so the framework's own lines are JSON too (nothing buffered). */
export function nestLogger(root: Logger): LoggerService {
  return new QuietNestLogger(new PinoLogger({ pinoHttp: { logger: root } }), {});
}
