import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { randomUUID } from 'node:crypto';
import type { EventMetadata } from '#des/event-store';
import { allows, Privilege } from '#des/kernel';
import { ApiError, PUBLIC_ROUTE, REQUIRED_PRIVILEGE } from '#des/platform';
import { chargeReadsTo } from '#des/read-store';
import { hashApiKey, keyFromAuthorization } from './api-key-secret';
import { holderCheckedAtTheGate } from './key-gate';
import { isLive, type KeyHolder, KeyLookups } from './key-lookups';
import { KeyUsageRecorder } from './key-usage';
import { unauthorized } from './unauthorized';

export interface Principal {
  org: string;
  account: string;
  privilege: Privilege;
  keyId: string;
}

export type AuthenticatedRequest = Request & { principal: Principal };

/** Who asked, for the events a request appends. */
export function requestMetadata(req: AuthenticatedRequest): EventMetadata {
  return {
    org: req.principal.org,
    actor: { kind: 'service_account', name: req.principal.account },
    correlation_id: String(req.id ?? randomUUID()),
  };
}

export { UNAUTHORIZED } from './unauthorized';
export const FORBIDDEN = "You don't have permission to access this resource";

/**
 * Every route: who is calling (API key, Bearer or Basic), for which
 * organization (the `{org}` of the path must be the key's), with which
 * privilege (declared per route with @Requires).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly keys: KeyLookups,
    private readonly usage: KeyUsageRecorder,
  ) {}

  /** What each route declares (by handler, then class), read from its metadata once. */
  private readonly declared = new WeakMap<
    object,
    WeakMap<object, { isPublic: boolean; required?: Privilege }>
  >();

  private declarationOf(context: ExecutionContext): { isPublic: boolean; required?: Privilege } {
    const [handler, type] = [context.getHandler(), context.getClass()];
    let byClass = this.declared.get(handler);
    if (!byClass) this.declared.set(handler, (byClass = new WeakMap()));
    let declaration = byClass.get(type);
    if (!declaration) {
      const targets = [handler, type];
      declaration = {
        isPublic: !!this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets),
        required: this.reflector.getAllAndOverride<Privilege>(REQUIRED_PRIVILEGE, targets),
      };
      byClass.set(type, declaration);
    }
    return declaration;
  }

  /**
   * Synchronous when the key's answer is kept in memory (the usual request,
   * embedded): Nest awaits a guard only when it returns a promise.
   */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const { isPublic, required } = this.declarationOf(context);
    if (isPublic) return true;
    if (!required)
      throw new Error(`route ${context.getClass().name}.${context.getHandler().name} declares no privilege`);

    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const atTheGate = holderCheckedAtTheGate(req);
    if (atTheGate) return this.admit(req, required, atTheGate);
    const key = keyFromAuthorization(req.headers.authorization);
    if (!key) throw unauthorized();
    const hash = hashApiKey(key);
    const known = this.keys.known(hash);
    if (known !== undefined) return this.admit(req, required, known);
    return this.keys.holderOf(hash).then((holder) => this.admit(req, required, holder));
  }

  /** The caller named by its key's holder, if the key is live, its organization the path's and its privilege enough. */
  private admit(req: AuthenticatedRequest, required: Privilege, holder: KeyHolder | null): true {
    const principal = this.authenticated(holder);
    const org = req.params?.org;
    if ((org !== undefined && org !== principal.org) || !allows(principal.privilege, required)) {
      throw new ApiError(403, FORBIDDEN);
    }
    req.principal = principal;
    return true;
  }

  /**
   * The principal of a live key's holder (401 otherwise): from here on the
   * request's reads are charged to its organization, and the key's use is recorded.
   */
  private authenticated(holder: KeyHolder | null): Principal {
    if (!isLive(holder)) throw unauthorized();
    const doc = holder.key;
    chargeReadsTo(doc.org);
    this.usage.record(doc.org, doc.service_account, doc._id, doc.last_used_at);
    return {
      org: doc.org,
      account: doc.service_account,
      privilege: holder.privilege,
      keyId: doc._id,
    };
  }
}
