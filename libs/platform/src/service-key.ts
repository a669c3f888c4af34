import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { hkdfSync, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config';
import { CONFIG } from './tokens';
import { causeOf } from './engine-watch';
import { StartupError } from './process-runner';

const KEY_FILE = 'actions-signing.key';

/**
 * The service's own secret: `DES_ACTIONS_SIGNING_KEY`, else the file
 * `DES_SERVICE_KEY_FILE` names (a mounted secret), else a random key
 * kept in the data directory (created once, readable by its owner only).
 * Every action's signing secret is derived from it, and the answers kept for
 * Idempotency-Key replays are encrypted under a key derived from it. Every
 * API and worker process must see the same key.
 */
@Injectable()
export class ServiceKey implements OnModuleInit {
  private key?: string;
  private readonly derived = new Map<string, Buffer>();

  constructor(@Inject(CONFIG) private readonly config: Config) {}

  get(): string {
    this.key ??= this.config.actions.signingKey ?? this.mounted() ?? this.fromFile();
    return this.key;
  }

  /** A mounted key is read at start, so a missing or empty one stops the start with its path, not a later request. */
  onModuleInit(): void {
    if (this.config.serviceKeyFile && !this.config.actions.signingKey) this.get();
  }

  /** `DES_SERVICE_KEY_FILE`: a key kept elsewhere (a mounted secret), shared by every process. */
  private mounted(): string | undefined {
    const path = this.config.serviceKeyFile;
    if (!path) return undefined;
    let key: string;
    try {
      key = readFileSync(path, 'utf8').trim();
    } catch (error) {
      throw new StartupError(
        `the service key file ${path} (DES_SERVICE_KEY_FILE) cannot be read: ${causeOf(error)}`,
      );
    }
    if (key.length < 16)
      throw new StartupError(
        `the service key file ${path} (DES_SERVICE_KEY_FILE) holds no key (fewer than 16 characters)`,
      );
    return key;
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
