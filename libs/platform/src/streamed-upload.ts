import type { Request } from 'express';
import type multer from 'multer';
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline, Transform } from 'node:stream';
import type { UploadTicket } from './upload-admission';

/** A multipart file as it was streamed to disk: where its bytes are, their SHA-256 and size. */
export interface StreamedFile {
  path: string;
  sha256: string;
  size: number;
}

/**
 * One request's uploads: the ticket its bytes are counted against and the
 * temporary files it wrote. `end` (when the request ends, however it ends)
 * removes those not adopted since and releases the ticket.
 */
export class RequestUploads {
  private readonly temporary = new Set<string>();
  private ended = false;

  constructor(
    readonly ticket: UploadTicket,
    private readonly tmpDir: string,
  ) {}

  get hasEnded(): boolean {
    return this.ended;
  }

  /** A fresh temporary file name, removed at the end unless adopted (renamed) before. */
  newTemporary(): string {
    const path = join(this.tmpDir, randomUUID());
    this.temporary.add(path);
    return path;
  }

  async remove(path: string): Promise<void> {
    await rm(path, { force: true });
    this.temporary.delete(path);
  }

  async end(): Promise<void> {
    this.ended = true;
    this.ticket.release();
    await Promise.all([...this.temporary].map((path) => this.remove(path)));
  }
}

const UPLOADS = Symbol('uploads');

export const requestUploads = (req: Request): RequestUploads | undefined =>
  (req as Request & { [UPLOADS]?: RequestUploads })[UPLOADS];

export const setRequestUploads = (req: Request, uploads: RequestUploads): void => {
  (req as Request & { [UPLOADS]?: RequestUploads })[UPLOADS] = uploads;
};

const requestEnded = () => new Error('the request ended before its upload was stored');

/**
 * A multer storage engine that writes each file to a temporary file as its
 * bytes arrive, hashing them on the way and counting them against the
 * request's ticket (which refuses past the request's cap or the quota). A
 * file is complete on disk (flushed) before multer hears of it; one that
 * fails is removed.
 */
export class StreamedToDisk implements multer.StorageEngine {
  _handleFile(
    req: Request,
    file: Express.Multer.File,
    callback: (error?: unknown, info?: Partial<Express.Multer.File> & Partial<StreamedFile>) => void,
  ): void {
    const uploads = requestUploads(req);
    if (!uploads || uploads.hasEnded) {
      file.stream.resume();
      return callback(requestEnded());
    }
    const path = uploads.newTemporary();
    const hash = createHash('sha256');
    let size = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        let wait: number;
        try {
          wait = uploads.ticket.take(chunk.length);
        } catch (refusal) {
          return done(refusal as Error);
        }
        hash.update(chunk);
        size += chunk.length;
        // Over the organization's upload rate: read on later (the sender is slowed by back-pressure).
        if (wait > 0) setTimeout(() => done(null, chunk), wait);
        else done(null, chunk);
      },
    });
    pipeline(file.stream, counted, createWriteStream(path, { flags: 'wx', flush: true }), (error) => {
      if (error || uploads.hasEnded) {
        void uploads.remove(path).finally(() => callback(error ?? requestEnded()));
        return;
      }
      callback(null, { path, size, sha256: hash.digest('hex') });
    });
  }

  _removeFile(req: Request, file: Express.Multer.File, callback: (error: Error | null) => void): void {
    const uploads = requestUploads(req);
    const removed = uploads ? uploads.remove(file.path) : rm(file.path, { force: true });
    removed.then(
      () => callback(null),
      (error: Error) => callback(error),
    );
  }
}
