import type { NextFunction, Request, RequestHandler, Response } from 'express';
import {
  type ApiError,
  BodyBytesInFlight,
  bodiesInFlightRefusal,
  closeUnread,
  type HttpLimitsConfig,
  type Metrics,
} from '#des/platform';
import { orgCheckedAtTheGate } from '#des/accounts';

/** A request announcing a body (a length above 0, or chunks). */
export function announcesBody(req: Request): boolean {
  const { 'content-length': length, 'transfer-encoding': chunked } = req.headers;
  return chunked !== undefined || (length !== undefined && length !== '0');
}

/**
 * What a caller without a key may ask: GET or HEAD without a body of the
 * probes, the metrics (their own token decides), the API's reference and
 * document, and anything outside the API (the workspace's files, its
 * redirects, a 404). No public route takes a body, so none is read for a stranger.
 */
export function needsNoKey(prefix: string, isProbePath: (path: string) => boolean) {
  const docs = `${prefix}/docs`;
  const documents = new Set([`${prefix}/openapi.json`, `${prefix}/openapi.yaml`]);
  return (req: Request): boolean => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || announcesBody(req)) return false;
    const path = req.path;
    if (!path.startsWith(`${prefix}/`)) return true;
    return isProbePath(path) || documents.has(path) || path === docs || path.startsWith(`${docs}/`);
  };
}

/**
 * A JSON body is held against its organization's and the process's bytes in
 * flight (its declared length; the parser's limit when it is sent in chunks)
 * from before it is read until its request ends; past either cap the request
 * is answered 429 with Retry-After, its body unread. Runs after the key gate
 * (it knows the organization); a body announced over the parser's limit
 * is answered 413 at once, unread.
 */
export function bodyBudget(
  limits: Pick<HttpLimitsConfig, 'orgBodyBytesInFlight' | 'bodyBytesInFlight'>,
  parser: { limitBytes: number; tooLarge: () => ApiError },
  metrics: Metrics,
): RequestHandler & { budget: BodyBytesInFlight } {
  const budget = new BodyBytesInFlight({
    perOrg: limits.orgBodyBytesInFlight,
    total: limits.bodyBytesInFlight,
  });
  const middleware = (req: Request, res: Response, next: NextFunction): void => {
    const org = orgCheckedAtTheGate(req);
    if (org === undefined || !announcesBody(req) || !req.is('application/json')) return next();
    const length = req.headers['content-length'];
    const bytes = length === undefined ? parser.limitBytes : Number(length);
    // The parser would read (and drop) the whole announced body before answering 413.
    if (!(bytes <= parser.limitBytes)) {
      closeUnread(req, res);
      return next(parser.tooLarge());
    }
    const refused = budget.take(org, bytes);
    if (refused) {
      metrics.tenantRefusals.inc({ org, limit: refused });
      closeUnread(req, res);
      const limitBytes =
        refused === 'orgBodyBytesInFlight' ? limits.orgBodyBytesInFlight : limits.bodyBytesInFlight;
      return next(bodiesInFlightRefusal(refused, limitBytes));
    }
    metrics.bodyBytesInFlight.set(budget.of());
    res.once('close', () => {
      budget.give(org, bytes);
      metrics.bodyBytesInFlight.set(budget.of());
    });
    next();
  };
  return Object.assign(middleware, { budget });
}
