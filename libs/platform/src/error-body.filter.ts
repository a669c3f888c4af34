import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  Logger,
  NotFoundException,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { EventTooLargeError, StoreUnavailableError } from '#des/event-store';
import { isMongoUnavailable } from '#des/read-store';
import { ApiError, DATABASE_UNAVAILABLE, errorBody, RETRY_AFTER_SECONDS } from './api-error';
import { DomainError, type DomainErrorKind } from '#des/kernel';
import { ReplayedResponse } from './replayed-response';
import { closeUnread } from './unread-body';
import { storageFaultOf, type StorageHealth } from './storage-health';

/** The HTTP status of each kind of domain refusal (the domain names kinds, never statuses). */
const STATUS_OF_KIND: Record<DomainErrorKind, number> = {
  invalid: 400,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
};

interface Answer {
  status: number;
  message: string;
  errors: Record<string, string> | null;
  headers?: Record<string, string>;
}

/**
 * Every error leaves as `{message, errors?}` (`errors` only when there are field errors). Store outages are 503 with
 * Retry-After; an append over the event store's size limit is 413; anything unexpected is a 500 that says nothing of our insides
 * and is logged with the request id the response also carries.
 */
@Catch()
export class ErrorBodyFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  /** `storage` learns of a full or failing disk, so readiness fails until it is writable again. */
  constructor(private readonly storage?: StorageHealth) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const res = ctx.getResponse<Response>();
    const req = ctx.getRequest<Request & { id?: string }>();
    if (exception instanceof ReplayedResponse) return replay(res, exception);
    const answer = this.answer(exception, req);
    if (res.headersSent) return;
    for (const [k, v] of Object.entries(answer.headers ?? {})) res.setHeader(k, v);
    if (!req.complete) closeUnread(req, res);
    res.status(answer.status).json(errorBody(answer.message, answer.errors));
  }

  private answer(exception: unknown, req: Request & { id?: string }): Answer {
    if (exception instanceof ApiError) {
      return {
        status: exception.getStatus(),
        message: bodyOf(exception).message,
        errors: exception.errors,
        headers: exception.headers,
      };
    }
    if (exception instanceof DomainError) {
      return { status: STATUS_OF_KIND[exception.kind], message: exception.message, errors: exception.errors };
    }
    const tooLarge = findCause(exception, EventTooLargeError);
    if (tooLarge) {
      return {
        status: 413,
        message: `Request too large: the events it would record exceed the event store's limit of ${tooLarge.limit} bytes per write`,
        errors: null,
      };
    }
    const diskFault = storageFaultOf(exception);
    if (diskFault) {
      this.storage?.failed(exception, 'a write');
      this.logger.error(`request ${String(req.id)}: a write failed: ${diskFault}; nothing was recorded`);
      return {
        status: 507,
        message: `Insufficient storage: the service's disk is full or failing (${diskFault}); nothing was recorded, retry later`,
        errors: null,
        headers: { 'Retry-After': String(RETRY_AFTER_SECONDS * 6) },
      };
    }
    const storeDown = findOutage(exception);
    if (storeDown) {
      this.logger.warn(`request ${String(req.id)}: ${storeDown.message}`);
      return {
        status: 503,
        message: DATABASE_UNAVAILABLE,
        errors: null,
        headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      };
    }
    if (exception instanceof NotFoundException && /^Cannot [A-Z]+ /.test(exception.message)) {
      return { status: 404, message: 'Not found', errors: null };
    }
    if (exception instanceof HttpException && exception.getStatus() < 500) {
      const body = bodyOf(exception);
      return { status: exception.getStatus(), message: body.message, errors: body.errors };
    }
    this.logger.error(
      { err: exception, request_id: req.id },
      `request ${String(req.id)} failed: ${exception instanceof Error ? exception.message : String(exception)}`,
    );
    return { status: 500, message: 'Internal server error', errors: null };
  }
}

function replay(res: Response, recorded: ReplayedResponse): void {
  if (res.headersSent) return;
  res.status(recorded.status).setHeader('Idempotent-Replayed', 'true');
  if (recorded.contentType) res.setHeader('Content-Type', recorded.contentType);
  res.end(recorded.body);
}

function bodyOf(exception: HttpException): { message: string; errors: Record<string, string> | null } {
  const response = exception.getResponse();
  if (typeof response === 'string') return { message: response, errors: null };
  const r = response as { message?: unknown; errors?: unknown };
  const message = Array.isArray(r.message) ? r.message.join('; ') : String(r.message ?? exception.message);
  const errors = r.errors && typeof r.errors === 'object' ? (r.errors as Record<string, string>) : null;
  return { message, errors };
}

/** The error itself, or one of its causes (a few levels deep), of the given class. */
function findCause<E extends Error>(
  error: unknown,
  type: abstract new (...args: never[]) => E,
): E | undefined {
  let current = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof type) return current;
    current = current.cause;
  }
  return undefined;
}

/**
 * The outage behind an error, if any: a StoreUnavailableError, or a MongoDB
 * driver error that means the same (should one ever escape the read store's
 * translation), in the error or its causes.
 */
function findOutage(error: unknown): Error | undefined {
  let current = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof StoreUnavailableError || isMongoUnavailable(current)) return current;
    current = current.cause;
  }
  return undefined;
}
