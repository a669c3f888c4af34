import type { NextFunction, Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import type { Logger as PinoRoot } from 'pino';
import type { OpenAPIObject } from '@nestjs/swagger';
import { ApiError, type Metrics } from '#des/platform';
import type { AuthenticatedRequest } from '#des/accounts';
import type { HttpDrain } from './http-drain';
import { KnownPaths } from './known-paths';
import { workspaceRedirect } from './workspace';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Probes and metrics are asked every few seconds: no line each. */
const UNLOGGED = /^\/(api\/v2\/)?(health|metrics)/;

export interface FrontDoorOptions {
  prefix: string;
  probes: string[];
  drain: HttpDrain;
  metrics: Metrics;
  logger: PinoRoot;
  document: () => OpenAPIObject;
}

/**
 * Every request's first step, done once, in one middleware with one
 * listener on the response: its id (the caller's X-Request-Id when sane),
 * the shutdown gate, the probes' aliases under the API prefix, the 405 of a
 * known path asked with a method it does not take (before any body is
 * read), the redirects into the workspace, and at the end one completion
 * line and the duration metric. No child logger, no async context here:
 * the request's context is entered once its body is read (`requestScope`).
 */
export function frontDoor(options: FrontDoorOptions) {
  const { prefix, drain, metrics, logger } = options;
  const prefixed = `${prefix}/`;
  const probes = new Set(options.probes.map((p) => `${prefixed}${p}`));
  let known: KnownPaths | undefined;
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = performance.now();
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    (req as Request & { id: string }).id = id;
    res.setHeader('X-Request-Id', id);
    if (!drain.admit(req, res)) return;
    res.once('close', () => {
      drain.settle(res);
      const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
      const seconds = (performance.now() - started) / 1000;
      metrics.httpDuration.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
      if (UNLOGGED.test(req.originalUrl) || !logger.isLevelEnabled('info')) return;
      const line = {
        req: { id, method: req.method, url: req.originalUrl, remoteAddress: req.socket.remoteAddress },
        res: { statusCode: res.statusCode },
        org: (req as AuthenticatedRequest).principal?.org,
        responseTime: Math.round(seconds * 1000),
      };
      if (!res.writableFinished) logger.info(line, 'request aborted');
      else if (res.statusCode >= 500) logger.error(line, 'request errored');
      else logger.info(line, 'request completed');
    });
    // Probes answer at the root (for orchestrators) and under the API prefix.
    if (probes.has(req.path)) req.url = req.url.slice(prefix.length);
    known ??= new KnownPaths(options.document(), prefix);
    const match = known.match(req.path);
    if (match && !match.allow.includes(req.method)) {
      res.setHeader('Allow', match.allow.join(', '));
      return next(new ApiError(405, 'Method not allowed'));
    }
    if (!match && !req.path.startsWith(prefixed)) {
      const location = workspaceRedirect(req);
      if (location) return res.redirect(302, location);
    }
    next();
  };
}
