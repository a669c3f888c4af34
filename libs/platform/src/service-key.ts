import { Inject, Injectable } from '@nestjs/common';
import { hkdfSync, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config';
import { CONFIG } from './tokens';

const KEY_FILE = 'actions-signing.key';

/**
 * The service's own secret: `DES_ACTIONS_SIGNING_KEY`, else a random key
 * kept in the data directory (created once, readable by its owner only).
 * Every action's signing secret is derived from it, and the answers kept for
 * Idempotency-Key replays are encrypted under a key derived from it. Every
 * API and worker process must see the same key.
 */
@Injectable()
export class ServiceKey {
  private key?: string;
  private readonly derived = new Map<string, Buffer>();

  constructor(@Inject(CONFIG) private readonly config: Config) {}

  get(): string {
    this.key ??= this.config.actions.signingKey ?? this.fromFile();
    return this.key;
  }

  /** A 256-bit key for one purpose (HKDF-SHA256), so no two uses share key material. */
  derive(purpose: string): Buffer {
    let key = this.derived.get(purpose);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', this.get(), Buffer.alloc(0), purpose, 32));
      this.derived.set(purpose, key);
    }
    return key;
  }

  private fromFile(): string {
    const path = join(this.config.dataDir, KEY_FILE);
    try {
      return readFileSync(path, 'utf8').trim();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    mkdirSync(this.config.dataDir, { recursive: true });
    // Written whole under another name, then linked into place: a process never reads half a key.
    const draft = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(draft, randomBytes(32).toString('base64url'), { mode: 0o600 });
    try {
      linkSync(draft, path);
    } catch (error) {
      // Another process put its key there first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      rmSync(draft, { force: true });
    }
    return readFileSync(path, 'utf8').trim();
  }
}
