import { RequestMethod, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { INTERCEPTORS_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Request } from 'express';
import { IdempotencyInterceptor } from '#des/idempotency';
import { answerOnlyWhatWasSeen } from '#des/platform';

const WRITES = new Set([RequestMethod.POST, RequestMethod.PUT, RequestMethod.PATCH, RequestMethod.DELETE]);

/** Each application's own interceptor, by its Express application (a process may hold several). */
const byExpressApp = new WeakMap<object, NestInterceptor>();

/**
 * What the write routes carry: the interceptor of the application that
 * serves the request. Route metadata belongs to the controller classes,
 * which every application in the process shares; this marker is the same
 * for all of them, so one application's setup never reaches another's.
 */
const WRITE_ROUTE: NestInterceptor = {
  intercept(context: ExecutionContext, next: CallHandler) {
    const interceptor = byExpressApp.get(context.switchToHttp().getRequest<Request>().app);
    if (!interceptor) throw new Error('a write route was served by an application without its interceptor');
    // Inside the Idempotency-Key's interceptor, so a write not yet readable releases the key for a resuming retry.
    return interceptor.intercept(context, { handle: () => next.handle().pipe(answerOnlyWhatWasSeen()) });
  },
};

/**
 * The application's idempotency interceptor (`Idempotency-Key`), registered
 * for its write routes, around the handler's answer held to what the read
 * models show (a write they do not show yet answers 503, ADR 0045).
 */
export function idempotencyFor(app: NestExpressApplication): NestInterceptor {
  const interceptor = app.get(IdempotencyInterceptor);
  byExpressApp.set(app.getHttpAdapter().getInstance(), interceptor);
  return WRITE_ROUTE;
}

/**
 * Puts `interceptor` first on every POST, PUT, PATCH and DELETE route of
 * the application's controllers, before its routes are registered (at
 * init). A global interceptor would run on reads too, and Nest's chain of
 * interceptors (an rxjs pipeline and an async-context binding per
 * interceptor) was a tenth of a read's cost; a route with none skips it.
 */
export function applyToWriteRoutes(app: NestExpressApplication, interceptor: NestInterceptor): void {
  const scanner = new MetadataScanner();
  for (const module of app.get(ModulesContainer).values()) {
    for (const { metatype } of module.controllers.values()) {
      if (!metatype) continue;
      const prototype = (metatype as { prototype: Record<string, unknown> }).prototype;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name] as object;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined || !WRITES.has(method)) continue;
        const present = (Reflect.getMetadata(INTERCEPTORS_METADATA, handler) as unknown[] | undefined) ?? [];
        if (present.includes(interceptor)) continue;
        Reflect.defineMetadata(INTERCEPTORS_METADATA, [interceptor, ...present], handler);
      }
    }
  }
}
