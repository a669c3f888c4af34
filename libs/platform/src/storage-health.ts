import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from './config';
import { CONFIG } from './tokens';

/** Error codes of a disk that is full or failing (Node's and SQLite's). */
const STORAGE_FAULTS: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EIO: 'input/output error',
  EROFS: 'the file system is read-only',
  SQLITE_FULL: 'no space left on the device (the event log is full)',
  SQLITE_IOERR: 'input/output error writing the event log',
  SQLITE_READONLY: 'the event log is read-only',
};

/** What a full or failing disk is called, if `error` (or its cause) is one. */
export function storageFaultOf(error: unknown): string | undefined {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; depth++) {
    const code = typeof e.code === 'string' ? e.code : undefined;
    if (code) {
      const known =
        STORAGE_FAULTS[code] ?? (code.startsWith('SQLITE_IOERR') ? STORAGE_FAULTS.SQLITE_IOERR : undefined);
      if (known) return `${known} (${code})`;
    }
    e = e.cause as typeof e;
  }
  return undefined;
}

/** How much a readiness check writes to learn that room is back (more than a small write needs). */
const PROBE_BYTES = 256 * 1024;
const PROBE_EVERY_MS = 1000;

/**
 * The state of the data directory's disk as this process last saw it: set
 * when a write there fails for want of room (or an I/O error), cleared when
 * one succeeds again, or when readiness finds it can write a probe file
 * there. Readiness fails, naming the directory, while it is set.
 */
@Injectable()
export class StorageHealth {
  private current?: string;
  private lastProbe = 0;

  constructor(@Inject(CONFIG) private readonly config: Config) {}

  /** The fault as readiness reports it, or undefined when writes work. */
  get fault(): string | undefined {
    if (this.current && Date.now() - this.lastProbe > PROBE_EVERY_MS) void this.probe();
    return this.current;
  }

  /** A write failed: if for the disk's sake, readiness fails until writes work again. Returns the fault, if it was one. */
  failed(error: unknown, what: string): string | undefined {
    const fault = storageFaultOf(error);
    if (fault) this.current = `${what} in ${this.config.dataDir}: ${fault}`;
    return fault;
  }

  /** A write succeeded. */
  succeeded(): void {
    this.current = undefined;
  }

  private async probe(): Promise<void> {
    this.lastProbe = Date.now();
    const path = join(this.config.dataDir, `.space-probe-${process.pid}`);
    try {
      const file = await open(path, 'w');
      try {
        await file.write(randomBytes(PROBE_BYTES));
        await file.sync();
      } finally {
        await file.close();
      }
      this.current = undefined;
    } catch {
      // Still full: the fault stays.
    } finally {
      await rm(path, { force: true }).catch(() => undefined);
    }
  }
}
