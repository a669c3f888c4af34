import { CallHandler, ExecutionContext, Inject, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import type { Observable } from 'rxjs';
import { stringify } from 'safe-stable-stringify';
import { CommandBus } from '@nestjs/cqrs';
import {
  ApiError,
  CONFIG,
  type Config,
  idempotentAttempts,
  Metrics,
  ReplayedResponse,
  seal,
  ServiceKey,
  unseal,
  uploadedParts,
  VALIDATION_FAILED,
} from '#des/platform';
import { AuthenticatedRequest, requestMetadata } from '#des/accounts';
import { ChangeIdempotencyKey } from './idempotency.commands';
import { idempotencyStream, isReplayable, StoredResponse } from './idempotency.decider';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const KEY = /^[\x21-\x7e]{1,255}$/;
/** Responses larger than this are not kept (writes answer small documents). */
const MAX_RECORDED_BYTES = 256 * 1024;

/** What the kept answers are encrypted under (derived from the service key). */
const SEALING = 'idempotent-responses';

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/**
 * A multipart request's files (parsed before interceptors run), by field:
 * name, type and content digest. Streamed parts (DataJsonGuard) bring their
 * digest, taken as they were written; files held in memory (a policy upload)
 * are hashed here. Either way the same files give the same digest.
 */
function filesDigest(req: Request): string {
  const byField = new Map<string, string[][]>();
  const add = (field: string, name: string, type: string, digest: string) =>
    byField.set(field, [...(byField.get(field) ?? []), [field, name, type, digest]]);
  const streamed = uploadedParts(req);
  if (streamed.length) for (const p of streamed) add(p.field, p.filename, p.mimetype, p.sha256);
  else {
    const files = req.files as
      Record<string, { originalname: string; mimetype: string; buffer: Buffer }[]> | undefined;
    for (const [field, list] of Object.entries(files ?? {}))
      for (const f of list) add(field, f.originalname, f.mimetype, sha256(f.buffer));
  }
  if (byField.size === 0) return '';
  const parts = [...byField.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, list]) => list);
  return `\n${stringify(parts)}`;
}

/**
 * `Idempotency-Key` on every write: the first request with a key claims it
 * in the log and its response is recorded there before it is sent; the same
 * request again within 24 h is answered that response and runs nothing. Runs
 * after authentication, so only the key's own organization can replay it.
 * A retry after an attempt that died unanswered (or answered 5xx/409/429)
 * runs again, resuming the writes that attempt made (`IdempotentAttempt`).
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger('idempotency');

  constructor(
    private readonly commands: CommandBus,
    private readonly metrics: Metrics,
    @Inject(CONFIG) private readonly config: Config,
    private readonly serviceKey: ServiceKey,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const key = req.headers['idempotency-key'];
    if (key === undefined || !WRITES.has(req.method) || !req.principal) return next.handle();
    if (typeof key !== 'string' || !KEY.test(key)) {
      throw new ApiError(400, VALIDATION_FAILED, {
        'Idempotency-Key': 'must be 1 to 255 visible ASCII characters, given once',
      });
    }
    const { org } = req.principal;
    const keyHash = sha256(key);
    const requestHash = sha256(
      `${req.method} ${req.originalUrl}\n${stringify(req.body ?? null)}${filesDigest(req)}`,
    );
    const metadata = requestMetadata(req);
    const stream = idempotencyStream(org, keyHash);
    const claim = await this.commands
      .execute(
        new ChangeIdempotencyKey(
          org,
          keyHash,
          {
            kind: 'claim',
            requestHash,
            method: req.method,
            path: req.originalUrl,
            claimTimeoutMicros: this.config.idempotencyClaimTimeoutMs * 1000,
          },
          metadata,
        ),
      )
      .catch((error: unknown) => {
        this.metrics.idempotentRequests.inc({ outcome: 'refused' });
        throw error;
      });
    if (claim.events.length === 0 && claim.state.status === 'answered') {
      this.metrics.idempotentRequests.inc({ outcome: 'replayed' });
      const { status, content_type, ...kept } = claim.state.response;
      const body = 'sealed_body' in kept ? this.unsealed(stream, kept.sealed_body) : kept.body;
      throw new ReplayedResponse(status, content_type, body);
    }
    if (claim.state.status !== 'claimed') throw new Error('Idempotency-Key claim not recorded');
    const attempts = claim.state.attempts;
    this.keepResponse(context.switchToHttp().getResponse<Response>(), stream, (status, response) =>
      this.commands.execute(
        new ChangeIdempotencyKey(
          org,
          keyHash,
          response ? { kind: 'record', requestHash, response } : { kind: 'release', requestHash, status },
          metadata,
        ),
      ),
    );
    // The handler runs as this attempt: its writes are tagged, and those of earlier attempts resumed.
    return idempotentAttempts.run(
      { claim: attempts[attempts.length - 1], earlier: attempts.slice(0, -1), writes: new Map() },
      () => next.handle(),
    );
  }

  /** A kept answer, decrypted; a 500 that names the cause when the service key changed since. */
  private unsealed(stream: string, sealed: string): string {
    try {
      return unseal(this.serviceKey.derive(SEALING), stream, sealed);
    } catch (error) {
      throw new Error(
        `the answer kept for this Idempotency-Key cannot be decrypted (was the service key, DES_ACTIONS_SIGNING_KEY, changed?): ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /**
   * Holds the end of the response until `settle` has recorded it (or, for one
   * a retry could change, released the key), so a client never sees an answer
   * that a retry would not get again. A failure to record is logged; the
   * answer still goes out (the write itself is done).
   */
  private keepResponse(
    res: Response,
    stream: string,
    settle: (status: number, response: StoredResponse | null) => Promise<unknown>,
  ): void {
    const chunks: Buffer[] = [];
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    const keep = (chunk: unknown, encoding: unknown) => {
      if (typeof chunk === 'string')
        chunks.push(Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
      else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
    };
    res.write = ((...args: unknown[]) => {
      keep(args[0], args[1]);
      return write(...args);
    }) as Response['write'];
    res.end = ((...args: unknown[]) => {
      if (typeof args[0] !== 'function') keep(args[0], args[1]);
      const body = Buffer.concat(chunks);
      const contentType = res.getHeader('content-type');
      const kept =
        isReplayable(res.statusCode) && body.length <= MAX_RECORDED_BYTES
          ? {
              status: res.statusCode,
              content_type: contentType ? String(contentType) : null,
              sealed_body: seal(this.serviceKey.derive(SEALING), stream, body.toString('utf8')),
            }
          : null;
      this.metrics.idempotentRequests.inc({ outcome: kept ? 'executed' : 'released' });
      settle(res.statusCode, kept)
        .catch((error: unknown) =>
          this.logger.warn(
            `Idempotency-Key response not recorded: ${error instanceof Error ? error.message : String(error)}`,
          ),
        )
        .finally(() => end(...args));
      return res;
    }) as Response['end'];
  }
}
