import { GridFSBucket, type Db } from 'mongodb';
import { createReadStream } from 'node:fs';
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
  async putFile(name: string, path: string): Promise<void> {
    await pipeline(createReadStream(path), this.bucket.openUploadStream(name));
  }

  /** Keeps `bytes` under `name`. */
  async put(name: string, bytes: Buffer): Promise<void> {
    const upload = this.bucket.openUploadStream(name);
    await new Promise<void>((resolve, reject) =>
      upload.once('error', reject).once('finish', resolve).end(bytes),
    );
  }

  /** The bytes kept under `name`, or null. */
  async get(name: string): Promise<Buffer | null> {
    if (!(await this.has(name))) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of this.bucket.openDownloadStreamByName(name)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
}
