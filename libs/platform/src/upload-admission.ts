import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from './api-error';
import {
  quotaExceeded,
  roomUnder,
  TENANT_LIMITS,
  TENANT_USAGE,
  type TenantLimitsSource,
  type TenantUsage,
  type TenantUsageSource,
  tooManyRequests,
} from './tenant-limits';

/**
 * How far ahead of its rate an organization's uploads may be read: a quarter
 * of a second's worth (8 MiB at the default rate). A longer burst at the
 * machine's full speed took the cores from every other tenant while it lasted.
 */
export const UPLOAD_BURST_MS = 250;

/** Answer to a request whose files together pass `uploadRequestBytes`. */
export function uploadTooLarge(limitBytes: number): ApiError {
  return new ApiError(413, `Upload too large: one request may carry at most ${limitBytes} bytes of files`, {
    files: `more than ${limitBytes} bytes of files in one request`,
  });
}

/** What an organization's uploads hold in this process now. */
interface OrgInFlight {
  uploads: number;
  bytes: number;
}

/**
 * The uploads in flight in this process, per organization: how many
 * requests, and the bytes they have streamed so far. Those bytes are not in
 * the organization's stored usage yet, so they are held against its quota
 * until the request ends (then they are kept and counted, or removed).
 */
export class UploadLedger {
  private readonly orgs = new Map<string, OrgInFlight>();
  /** When each organization's uploads have been given all the bytes their rate allows (ms). */
  private readonly paidUntil = new Map<string, number>();

  of(org: string): OrgInFlight {
    return this.orgs.get(org) ?? { uploads: 0, bytes: 0 };
  }

  /** One upload more, unless `limit` (0: unlimited) are in flight already. */
  enter(org: string, limit: number): boolean {
    const now = this.of(org);
    if (limit > 0 && now.uploads >= limit) return false;
    this.orgs.set(org, { ...now, uploads: now.uploads + 1 });
    return true;
  }

  /** `bytes` more streamed, unless they would pass `room` (the quota's room left, in-flight bytes not counted). */
  hold(org: string, bytes: number, room: number): boolean {
    const now = this.of(org);
    if (now.bytes + bytes > room) return false;
    this.orgs.set(org, { ...now, bytes: now.bytes + bytes });
    return true;
  }

  /**
   * Paces an organization's uploads to `bytesPerSecond` in all (0: unpaced):
   * how long to wait before reading on after `bytes`, beyond a burst of
   * `UPLOAD_BURST_MS` worth. Reading slower makes the sender slow down (TCP back-pressure), so
   * one tenant's uploads take a bounded share of the process's time.
   */
  pace(org: string, bytes: number, bytesPerSecond: number, now = Date.now()): number {
    if (bytesPerSecond <= 0) return 0;
    const paid = Math.max(now, this.paidUntil.get(org) ?? now) + (bytes / bytesPerSecond) * 1000;
    this.paidUntil.set(org, paid);
    if (this.paidUntil.size > 10_000)
      for (const [other, until] of this.paidUntil) if (until < now) this.paidUntil.delete(other);
    return Math.max(0, paid - now - UPLOAD_BURST_MS);
  }

  /** An upload ended: its count (when it was counted) and bytes go. */
  leave(org: string, counted: boolean, bytes: number): void {
    const now = this.of(org);
    const next = { uploads: now.uploads - (counted ? 1 : 0), bytes: now.bytes - bytes };
    if (next.uploads <= 0 && next.bytes <= 0) this.orgs.delete(org);
    else this.orgs.set(org, next);
  }
}

/**
 * One multipart request's right to upload: it refuses the bytes that would
 * pass the request's cap (413) or the organization's attachment quota (507).
 * `release` (once, when the request ends however it ends) gives back its
 * place among the organization's concurrent uploads and its held bytes.
 */
export class UploadTicket {
  private taken = 0;
  private released = false;
  private refusal?: ApiError;

  constructor(
    private readonly ledger: UploadLedger,
    readonly org: string,
    private readonly counted: boolean,
    private readonly requestLimit: number,
    private readonly quota: { limit: number; room: number },
    private readonly bytesPerSecond = 0,
  ) {}

  /** Bytes taken so far by this request (and held against the quota). */
  get bytes(): number {
    return this.taken;
  }

  /**
   * Counts `bytes` more, or throws the refusal (413 past the request's cap,
   * 507 past the quota); answers how long (ms) to wait before reading on.
   */
  take(bytes: number): number {
    if (this.released) throw new Error('upload ticket used after its request ended');
    if (this.refusal) throw this.refusal;
    if (this.requestLimit > 0 && this.taken + bytes > this.requestLimit)
      this.refuse(uploadTooLarge(this.requestLimit));
    if (!this.ledger.hold(this.org, bytes, this.quota.room))
      this.refuse(quotaExceeded('attachmentBytes', this.quota.limit));
    this.taken += bytes;
    return this.ledger.pace(this.org, bytes, this.bytesPerSecond);
  }

  /** A refused request keeps none of its files: what it held is room again for the others at once. */
  private refuse(refusal: ApiError): never {
    this.refusal = refusal;
    this.ledger.leave(this.org, false, this.taken);
    this.taken = 0;
    throw refusal;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.ledger.leave(this.org, this.counted, this.taken);
  }
}

/** Seconds a client refused for concurrent uploads is asked to wait. */
const UPLOAD_RETRY_AFTER_SECONDS = 2;

/**
 * Admits an organization's multipart uploads by its limits: concurrent
 * uploading requests (`concurrentUploads`, 429), bytes per request
 * (`uploadRequestBytes`, 413) and its attachment quota (`attachmentBytes`,
 * 507, with in-flight uploads held against it). Counts within this process.
 */
@Injectable()
export class UploadAdmission {
  private readonly ledger = new UploadLedger();

  constructor(
    @Inject(TENANT_LIMITS) private readonly limits: TenantLimitsSource,
    @Inject(TENANT_USAGE) private readonly usage: TenantUsageSource,
  ) {}

  /**
   * A ticket for one request; `counted` requests take one of the
   * organization's concurrent uploads (429 when none is left).
   */
  async admit(org: string, counted: boolean): Promise<UploadTicket> {
    const limits = await this.limits.limitsFor(org);
    if (counted && !this.ledger.enter(org, limits.concurrentUploads)) {
      throw tooManyRequests(
        'concurrentUploads',
        `this organization already has ${limits.concurrentUploads} uploads in progress`,
        UPLOAD_RETRY_AFTER_SECONDS,
      );
    }
    // Usage only once admitted: a refused request costs the read-model server nothing.
    let usage: TenantUsage;
    try {
      usage = await this.usage.usageOf(org);
    } catch (error) {
      if (counted) this.ledger.leave(org, true, 0);
      throw error;
    }
    const room = roomUnder(limits.attachmentBytes, usage.attachmentBytes);
    return new UploadTicket(
      this.ledger,
      org,
      counted,
      limits.uploadRequestBytes,
      {
        limit: limits.attachmentBytes,
        room,
      },
      limits.uploadBytesPerSecond,
    );
  }

  /** What the organization's uploads hold in this process now (for tests and metrics). */
  inFlight(org: string): { uploads: number; bytes: number } {
    return this.ledger.of(org);
  }
}
