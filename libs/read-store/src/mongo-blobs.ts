import { GridFSBucket, type Db } from 'mongodb';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Immutable files kept by name in MongoDB (GridFS, through the official
 * driver): every process of a deployment reads what any one wrote. A file is
 * visible once whole (GridFS writes its chunks, then its entry), so a
 * failed upload leaves nothing a reader can see.
 */
export class MongoBlobs {
  private readonly bucket: GridFSBucket;

  constructor(db: Db, bucketName: string) {
    this.bucket = new GridFSBucket(db, { bucketName });
  }

  async has(name: string): Promise<boolean> {
    return (await this.bucket.find({ filename: name }, { limit: 1 }).toArray()).length > 0;
  }

  /** Keeps the file at `path` under `name`. */
  putFile(name: string, path: string): Promise<void> {
    return pipeline(createReadStream(path), this.bucket.openUploadStream(name));
  }

  /** Keeps `bytes` under `name`. */
  put(name: string, bytes: Buffer): Promise<void> {
    return pipeline(Readable.from([bytes]), this.bucket.openUploadStream(name));
  }

  /** The bytes kept under `name`, or null (one lookup: the driver's download says when there is none). */
  async get(name: string): Promise<Buffer | null> {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of this.bucket.openDownloadStreamByName(name)) chunks.push(chunk as Buffer);
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') return null;
      throw error;
    }
    return Buffer.concat(chunks);
  }

  /**
   * The bytes kept under `name` as a stream read chunk by chunk as the
   * reader takes them (the driver fetches the next chunks when it needs
   * them), with their size; null when there is none.
   */
  async open(name: string): Promise<{ size: number; stream: Readable } | null> {
    const file = await this.entry(name);
    return file && { size: file.length, stream: this.bucket.openDownloadStream(file._id) };
  }

  /** The size of the file kept under `name`, or null. */
  async sizeOf(name: string): Promise<number | null> {
    return (await this.entry(name))?.length ?? null;
  }

  private async entry(name: string) {
    const [file] = await this.bucket
      .find({ filename: name }, { limit: 1, sort: { uploadDate: 1 } })
      .toArray();
    return file ?? null;
  }
}
