import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG, type Config } from '#des/platform';

const KEY_FILE = 'actions-signing.key';

/**
 * The key every action's signing secret is derived from:
 * `DES_ACTIONS_SIGNING_KEY`, else a random key kept in the data directory
 * (created once, readable by its owner only). Every process that creates
 * actions or delivers their notifications must see the same key.
 */
@Injectable()
export class ActionSigningKey {
  private key?: string;

  constructor(@Inject(CONFIG) private readonly config: Config) {}

  get(): string {
    this.key ??= this.config.actions.signingKey ?? this.fromFile();
    return this.key;
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
