import { Zip, type ZipInputFile } from 'fflate';
import { nextTurn } from '#des/event-store';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { crc32, deflateRaw } from 'node:zlib';

const deflate = promisify(deflateRaw);

/** Bytes handed to the zip (and CRC'd) at a time: each slice is a fraction of a millisecond of work. */
const SLICE = 256 * 1024;

/** A member written as it is (stored): its size, and its bytes read when its turn comes. */
export interface StreamedMember {
  path: string;
  size: number;
  open(): Promise<Readable>;
}

/** A member held in memory, deflated or stored. */
export interface HeldMember {
  path: string;
  bytes: Buffer;
  deflate: boolean;
}

type Prepared = { path: string; size: number } & (
  { held: Buffer; crc: number; compressed?: Buffer } | { open(): Promise<Readable> }
);

/** A zip member fed by hand: what it holds is known (stored) or compressed already (deflated). */
class RawMember implements ZipInputFile {
  crc = 0;
  size = 0;
  ondata?: ZipInputFile['ondata'];
  constructor(
    readonly filename: string,
    readonly compression: 0 | 8,
    readonly mtime: Date,
  ) {}
}

/**
 * A zip written member by member as its reader takes it (the zip format of
 * `zipSync`, each member followed by a data descriptor): a stored member is
 * read from its stream a chunk at a time, so the zip never holds more than
 * a few chunks of it; members held in memory are deflated on libuv's thread
 * pool (zlib), off the event loop, before the first byte goes. Its total
 * size is known before it is written (`size`).
 */
export class StreamedZip {
  private constructor(
    private readonly members: Prepared[],
    private readonly mtime: Date,
    /** The zip's length in bytes. */
    readonly size: number,
  ) {}

  static async of(members: (HeldMember | StreamedMember)[], mtime: Date): Promise<StreamedZip> {
    const prepared: Prepared[] = [];
    let size = 22; // the end of the central directory
    for (const member of members) {
      const name = Buffer.byteLength(member.path, 'utf8');
      if ('bytes' in member) {
        const crc = await crcOf(member.bytes);
        const compressed = member.deflate ? await deflate(member.bytes, { level: 6 }) : undefined;
        prepared.push({ path: member.path, size: member.bytes.length, held: member.bytes, crc, compressed });
        size += 30 + name + (compressed ?? member.bytes).length + 16 + 46 + name;
      } else {
        prepared.push(member);
        size += 30 + name + member.size + 16 + 46 + name;
      }
    }
    return new StreamedZip(prepared, mtime, size);
  }

  /** The zip's bytes, produced as they are asked for (a `Readable.from` of it keeps back-pressure). */
  async *bytes(): AsyncGenerator<Uint8Array> {
    const out: Uint8Array[] = [];
    let failure: Error | null = null;
    const zip = new Zip((error, chunk) => {
      if (error) failure ??= error;
      else out.push(chunk);
    });
    let written = 0;
    const drain = function* () {
      if (failure) throw failure;
      for (let chunk = out.shift(); chunk; chunk = out.shift()) {
        written += chunk.length;
        yield chunk;
      }
    };
    for (const member of this.members) {
      const file = new RawMember(
        member.path,
        'compressed' in member && member.compressed ? 8 : 0,
        this.mtime,
      );
      zip.add(file);
      const push = (chunk: Uint8Array, final: boolean) =>
        file.ondata!(null, chunk as Uint8Array<ArrayBuffer>, final);
      if ('held' in member) {
        file.crc = member.crc;
        file.size = member.size;
        const body = member.compressed ?? member.held;
        for (let at = 0; at < body.length || at === 0; at += SLICE) {
          push(body.subarray(at, at + SLICE), at + SLICE >= body.length);
          for (const chunk of drain()) yield chunk;
        }
        continue;
      }
      const source = await member.open();
      let crc = 0;
      let size = 0;
      try {
        for await (const read of source) {
          const chunk = read as Buffer;
          for (let at = 0; at < chunk.length; at += SLICE) {
            const slice = chunk.subarray(at, at + SLICE);
            crc = crc32(slice, crc);
            size += slice.length;
            push(slice, false);
            for (const out of drain()) yield out;
          }
        }
      } finally {
        source.destroy();
      }
      // A file that changed size since it was listed would make a zip other than the manifest says.
      if (size !== member.size)
        throw new Error(`${member.path}: ${size} bytes read where ${member.size} were listed`);
      file.crc = crc;
      file.size = size;
      push(new Uint8Array(0), true);
      for (const chunk of drain()) yield chunk;
    }
    zip.end();
    for (const chunk of drain()) yield chunk;
    if (written !== this.size)
      throw new Error(`the zip came to ${written} bytes, not the ${this.size} announced`);
  }
}

/** The CRC-32 of `bytes`, a slice at a time, giving the loop a turn between slices of a large one. */
async function crcOf(bytes: Buffer): Promise<number> {
  let crc = 0;
  for (let at = 0; at < bytes.length; at += 16 * SLICE) {
    crc = crc32(bytes.subarray(at, at + 16 * SLICE), crc);
    if (at + 16 * SLICE < bytes.length) await nextTurn();
  }
  return crc;
}
