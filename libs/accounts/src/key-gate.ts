import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { closeUnread } from '#des/platform';
import { hashApiKey, keyFromAuthorization } from './api-key-secret';
import { isLive, type KeyHolder, KeyLookups } from './key-lookups';
import { unauthorized } from './unauthorized';

/** The holder the gate found for the Authorization header it read. */
interface GateAnswer {
  authorization: string;
  holder: KeyHolder;
}
const checked = new WeakMap<Request, GateAnswer>();

/**
 * The live key's holder the gate found for this request's Authorization
 * header, so the guard does not look it up again (undefined: ask the lookups).
 */
export function holderCheckedAtTheGate(req: Request): KeyHolder | undefined {
  const answer = checked.get(req);
  return answer && answer.authorization === req.headers.authorization ? answer.holder : undefined;
}

/** The organization of the key the gate let through (undefined for a request it did not check). */
export function orgCheckedAtTheGate(req: Request): string | undefined {
  return checked.get(req)?.holder.key.org;
}

/**
 * A stranger costs nothing: before any body is read, a request that needs a
 * key and presents none, or one that names no live key, is answered 401 and
 * its connection closed unread. The same cached lookups as the guard, which
 * stays the authority on privileges and organizations: the gate only refuses
 * keys that cannot be valid.
 */
export function keyGate(keys: KeyLookups, needsNoKey: (req: Request) => boolean): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (needsNoKey(req)) return next();
    const authorization = req.headers.authorization;
    const key = keyFromAuthorization(authorization);
    if (!key) return refuse(req, res, next);
    const hash = hashApiKey(key);
    const admit = (holder: KeyHolder | null) => {
      if (!isLive(holder)) return refuse(req, res, next);
      checked.set(req, { authorization: authorization!, holder });
      next();
    };
    const known = keys.known(hash);
    if (known !== undefined) return admit(known);
    keys.holderOf(hash).then(admit, next);
  };
}

function refuse(req: Request, res: Response, next: NextFunction): void {
  closeUnread(req, res);
  next(unauthorized());
}
