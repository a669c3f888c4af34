import { type Binary, type Collection, GridFSBucket, type Db } from 'mongodb';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** GridFS chunks (255 KiB each) fetched per round trip when a file is streamed. */
const CHUNKS_PER_READ = 4;

/**
 * Immutable files kept by name in MongoDB (GridFS, through the official
 * driver): every process of a deployment reads what any one wrote. A file is
 * visible once whole (GridFS writes its chunks, then its entry), so a
 * failed upload leaves nothing a reader can see.
 */
export class MongoBlobs {
  private readonly bucket: GridFSBucket;

  private readonly chunks: Collection;

  constructor(db: Db, bucketName: string) {
    this.bucket = new GridFSBucket(db, { bucketName });
    this.chunks = db.collection(`${bucketName}.chunks`);
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
   * The bytes kept under `name` as a stream read a few chunks at a time as
   * the reader takes them, with their size; null when there is none.
   */
  async open(name: string): Promise<{ size: number; stream: Readable } | null> {
    const file = await this.entry(name);
    if (!file) return null;
    const chunks = this.chunksOf(file._id, Math.ceil(file.length / file.chunkSize));
    return { size: file.length, stream: Readable.from(chunks, { objectMode: false }) };
  }

  /** The size of the file kept under `name`, or null. */
  async sizeOf(name: string): Promise<number | null> {
    return (await this.entry(name))?.length ?? null;
  }

  /**
   * A file's chunks in order, a few per round trip: the driver's download
   * stream asks for the server's default batch (up to 16 MB), so a stalled
   * reader of a large file would hold most of it. One cursor per file: a
   * query per few chunks costs FerretDB a scan of the collection each.
   */
  private async *chunksOf(id: unknown, count: number): AsyncGenerator<Buffer> {
    const cursor = this.chunks.find({ files_id: id }, { sort: { n: 1 } }).batchSize(CHUNKS_PER_READ);
    let read = 0;
    try {
      for await (const chunk of cursor) {
        read += 1;
        yield Buffer.from((chunk.data as Binary).buffer);
      }
    } finally {
      await cursor.close();
    }
    if (read !== count) throw new Error(`file ${String(id)}: ${read} of its ${count} chunks in GridFS`);
  }

  private async entry(name: string) {
    const [file] = await this.bucket
      .find({ filename: name }, { limit: 1, sort: { uploadDate: 1 } })
      .toArray();
    return file ?? null;
  }
}
