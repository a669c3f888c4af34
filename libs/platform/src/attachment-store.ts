import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { dirname, join } from 'node:path';
import type { Config } from './config';
import type { StreamedFile } from './streamed-upload';
import { CONFIG, READ_STORE } from './tokens';
import { MongoBlobs, MongoReadStore, type ReadStore } from '#des/read-store';

const SHA256 = /^[0-9a-f]{64}$/;
/** A temporary file this old belongs to no request still running (a crash left it). */
const STALE_TEMPORARY_MS = 60 * 60 * 1000;

/**
 * Files sent with evidence (attestation attachments), kept content-addressed
 * by their SHA-256: embedded, under the data directory
 * (`attachments/<2 hex>/<sha256>`); in server mode, in the read models'
 * MongoDB (GridFS bucket `attachments`), so that any API process serves a
 * file any other received. The same bytes are kept once; a file is kept
 * whole (written to a temporary name, then renamed; GridFS shows a file
 * once all of it is written) or not at all, and never changed, so its name
 * proves its content. Uploads stream into `attachments/tmp` in the data
 * directory and are adopted from there.
 */
@Injectable()
export class AttachmentStore implements OnModuleInit {
  private readonly dir: string;
  private tmp?: Promise<string>;
  /** Server mode: the files every process shares. */
  private readonly shared?: MongoBlobs;

  constructor(@Inject(CONFIG) config: Config, @Inject(READ_STORE) reads: ReadStore) {
    this.dir = join(config.dataDir, 'attachments');
    if (reads instanceof MongoReadStore) this.shared = reads.blobs('attachments');
  }

  /** Removes the temporary files a crash left behind (those of running uploads are recent). */
  async onModuleInit(): Promise<void> {
    const tmp = join(this.dir, 'tmp');
    const names = await readdir(tmp).catch(() => [] as string[]);
    const before = Date.now() - STALE_TEMPORARY_MS;
    for (const name of names) {
      const path = join(tmp, name);
      const kept = await stat(path).catch(() => undefined);
      if (kept && kept.mtimeMs < before) await rm(path, { force: true });
    }
  }

  /** Where uploads stream to, on the same file system as the store (so adopting one is a rename). */
  temporaryDir(): Promise<string> {
    this.tmp ??= (async () => {
      const tmp = join(this.dir, 'tmp');
      await mkdir(tmp, { recursive: true });
      return tmp;
    })().catch((error: unknown) => {
      this.tmp = undefined;
      throw error;
    });
    return this.tmp;
  }

  /**
   * Keeps a file streamed to a temporary name, complete and hashed on the
   * way: renamed to its digest's name, or removed when those bytes are kept
   * already.
   */
  async adopt(file: StreamedFile): Promise<{ sha256: string; size: number }> {
    if (!SHA256.test(file.sha256) || dirname(file.path) !== join(this.dir, 'tmp'))
      throw new Error(`not a streamed upload: ${file.path}`);
    if (this.shared) {
      try {
        if (!(await this.shared.has(file.sha256))) await this.shared.putFile(file.sha256, file.path);
      } finally {
        await rm(file.path, { force: true });
      }
      return { sha256: file.sha256, size: file.size };
    }
    const path = this.path(file.sha256);
    if (await stat(path).catch(() => undefined)) await rm(file.path, { force: true });
    else {
      await mkdir(dirname(path), { recursive: true });
      await rename(file.path, path);
    }
    return { sha256: file.sha256, size: file.size };
  }

  /** The bytes kept under a digest, or null. */
  async get(sha256: string): Promise<Buffer | null> {
    if (!SHA256.test(sha256)) return null;
    if (this.shared) return this.shared.get(sha256);
    return readFile(this.path(sha256)).catch(() => null);
  }

  /**
   * The bytes kept under a digest as a stream read from disk (or the shared
   * store) as its reader takes them, with their size, or null. A reader that
   * stops reading holds a few chunks, never the file: pipe it with
   * back-pressure (`pipeline`), and destroy it when the reader goes.
   */
  async open(sha256: string): Promise<{ size: number; stream: Readable } | null> {
    if (!SHA256.test(sha256)) return null;
    if (this.shared) return this.shared.open(sha256);
    // Opened first, then sized and read through the same descriptor: the file cannot go in between.
    const handle = await open(this.path(sha256), 'r').catch(() => null);
    if (!handle) return null;
    try {
      const { size } = await handle.stat();
      return { size, stream: createReadStream('', { fd: handle, autoClose: true }) };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** The size of the bytes kept under a digest, or null. */
  async sizeOf(sha256: string): Promise<number | null> {
    if (!SHA256.test(sha256)) return null;
    if (this.shared) return this.shared.sizeOf(sha256);
    return (await stat(this.path(sha256)).catch(() => null))?.size ?? null;
  }

  /** Where the bytes kept under a digest are (whether or not they are). */
  private path(sha256: string): string {
    if (!SHA256.test(sha256)) throw new Error(`not a SHA-256 digest: ${sha256}`);
    return join(this.dir, sha256.slice(0, 2), sha256);
  }
}
