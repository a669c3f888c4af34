import { createHash } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { MemoryChunk, MemoryReadStore } from './memory-read-store';

/**
 * What a saved read-model file stands for: the code that projected it and
 * the last event it holds. A file is used only when both still hold.
 */
export interface ReadModelFileMeta {
  /** Fingerprint of the code that wrote it (projections change, the file is stale). */
  code: string;
  /** Log position of the last event applied, and that event's id (the log it came from). */
  position: number;
  eventId: string | null;
  savedAt: string;
}

export interface ReadModelFileSaved {
  bytes: number;
  documents: number;
}

export type ReadModelFileLoad =
  { loaded: true; meta: ReadModelFileMeta; documents: number } | { loaded: false; reason: string };

/**
 * Layout: chunks (u32 length, v8-serialized `MemoryChunk`), then a JSON
 * trailer (meta, chunk count, sha256 of the chunks), its u32 length, and
 * MAGIC. The trailer is written last, so a file cut short has none.
 */
const MAGIC = Buffer.from('DES-READ-MODELS-1');
const LENGTH = 4;

/**
 * Writes the store to `path` whole or not at all: a temporary file, synced,
 * then renamed over the old one. Yields to the event loop between chunks,
 * so requests go on while a large store is saved (the chunks come from a
 * fork of the store: later writes do not show).
 */
export async function saveReadModels(
  path: string,
  store: MemoryReadStore,
  meta: ReadModelFileMeta,
): Promise<ReadModelFileSaved> {
  const draft = `${path}.${process.pid}.tmp`;
  const file = await open(draft, 'w');
  const hash = createHash('sha256');
  let bytes = 0;
  let chunks = 0;
  let documents = 0;
  try {
    for (const chunk of store.exportChunks()) {
      const body = serialize(chunk);
      const length = Buffer.alloc(LENGTH);
      length.writeUInt32BE(body.length);
      hash.update(length).update(body);
      await file.write(length);
      await file.write(body);
      bytes += LENGTH + body.length;
      chunks++;
      documents += chunk.docs.length;
      await new Promise((r) => setImmediate(r));
    }
    const trailer = Buffer.from(JSON.stringify({ meta, chunks, documents, sha256: hash.digest('hex') }));
    const length = Buffer.alloc(LENGTH);
    length.writeUInt32BE(trailer.length);
    await file.write(Buffer.concat([trailer, length, MAGIC]));
    bytes += trailer.length + LENGTH + MAGIC.length;
    await file.sync();
  } catch (error) {
    await file.close();
    await rm(draft, { force: true });
    throw error;
  }
  await file.close();
  await rename(draft, path);
  await syncDirectory(dirname(path));
  return { bytes, documents };
}

/**
 * Replaces what `store` holds by the file's contents, when the file is whole
 * and was written by code with fingerprint `code`. Otherwise the store is
 * left empty and the reason says why (no file, cut short, damaged, stale).
 */
export async function loadReadModels(
  path: string,
  store: MemoryReadStore,
  code: string,
): Promise<ReadModelFileLoad> {
  let data: Buffer;
  try {
    data = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { loaded: false, reason: 'no saved read models' };
    throw error;
  }
  const trailer = readTrailer(data);
  if (typeof trailer === 'string') return { loaded: false, reason: trailer };
  if (trailer.meta.code !== code) {
    return { loaded: false, reason: 'the saved read models were projected by other code' };
  }
  const body = data.subarray(0, trailer.bodyLength);
  if (createHash('sha256').update(body).digest('hex') !== trailer.sha256) {
    return { loaded: false, reason: 'the saved read models are damaged (checksum mismatch)' };
  }
  store.clear();
  try {
    let offset = 0;
    for (let i = 0; i < trailer.chunks; i++) {
      const length = body.readUInt32BE(offset);
      offset += LENGTH;
      store.importChunk(deserialize(body.subarray(offset, offset + length)) as MemoryChunk);
      offset += length;
    }
  } catch (error) {
    store.clear();
    return { loaded: false, reason: `the saved read models cannot be read: ${(error as Error).message}` };
  }
  return { loaded: true, meta: trailer.meta, documents: trailer.documents };
}

interface Trailer {
  meta: ReadModelFileMeta;
  chunks: number;
  documents: number;
  sha256: string;
  bodyLength: number;
}

/** The trailer, or why there is none to trust. */
function readTrailer(data: Buffer): Trailer | string {
  const cutShort = 'the saved read models are incomplete (no trailer)';
  if (data.length < MAGIC.length + LENGTH || !data.subarray(data.length - MAGIC.length).equals(MAGIC)) {
    return cutShort;
  }
  const lengthAt = data.length - MAGIC.length - LENGTH;
  const trailerLength = data.readUInt32BE(lengthAt);
  const bodyLength = lengthAt - trailerLength;
  if (bodyLength < 0) return cutShort;
  try {
    const parsed = JSON.parse(data.subarray(bodyLength, lengthAt).toString('utf8')) as Omit<
      Trailer,
      'bodyLength'
    >;
    return { ...parsed, bodyLength };
  } catch {
    return 'the saved read models are damaged (unreadable trailer)';
  }
}

/** A rename is durable once its directory is synced (where the platform allows opening one). */
async function syncDirectory(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // Some platforms cannot sync a directory; the rename is then as durable as they make it.
  } finally {
    await handle?.close();
  }
}
