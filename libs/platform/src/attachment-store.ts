import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from './config';
import { CONFIG } from './tokens';

/**
 * Files sent with evidence (attestation attachments), kept content-addressed
 * under the data directory: `attachments/<2 hex>/<sha256>`. The same bytes are
 * kept once; a file is written whole (to a temporary name, then renamed) or
 * not at all, and never changed, so its name proves its content.
 */
@Injectable()
export class AttachmentStore {
  private readonly dir: string;

  constructor(@Inject(CONFIG) config: Config) {
    this.dir = join(config.dataDir, 'attachments');
  }

  async put(content: Buffer): Promise<{ sha256: string; size: number }> {
    const sha256 = createHash('sha256').update(content).digest('hex');
    const path = this.path(sha256);
    const kept = await stat(path).catch(() => undefined);
    if (!kept) {
      await mkdir(join(this.dir, sha256.slice(0, 2)), { recursive: true });
      const partial = `${path}.${randomUUID()}.partial`;
      await writeFile(partial, content, { flush: true });
      await rename(partial, path);
    }
    return { sha256, size: content.length };
  }

  /** The bytes kept under a digest, or null. */
  async get(sha256: string): Promise<Buffer | null> {
    if (!/^[0-9a-f]{64}$/.test(sha256)) return null;
    return readFile(this.path(sha256)).catch(() => null);
  }

  private path(sha256: string): string {
    return join(this.dir, sha256.slice(0, 2), sha256);
  }
}
