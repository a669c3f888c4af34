import { TimeSlice } from '#des/event-store';
import { jsonStringEnd, jsonTextExcess } from './json-depth';

/**
 * JSON text parsed without holding the event loop for more than a slice,
 * whatever its size (ADR 0047). One pass over the bytes checks the shape
 * limits (depth, keys per object, values) and the structure between values;
 * every container whose text is at most `pieceBytes` is handed whole to the
 * native `JSON.parse` (which checks everything inside it), and larger ones
 * are assembled from such pieces. The pass and the assembly give the loop a
 * turn (`TimeSlice`) once a slice's time has run: a 10 MB body costs about
 * what `JSON.parse` costs, in slices of a few milliseconds. The answer equals
 * `JSON.parse`'s (the last of repeated keys, `__proto__` an own property).
 */

export type JsonShapeExcess = 'depth' | 'keys' | 'nodes';

/** Why text was refused: not JSON, or past a shape limit (named). */
export class JsonTextRefused extends Error {
  constructor(readonly excess: JsonShapeExcess | 'malformed') {
    super(excess === 'malformed' ? 'Malformed JSON' : `JSON past its ${excess} limit`);
  }
}

export interface SlicedJsonLimits {
  maxDepth: number;
  maxKeys: number;
  maxNodes: number;
}

export interface SlicedJsonOptions {
  /** Containers of at most this many bytes are parsed in one native call. */
  pieceBytes?: number;
  /** The slice: how long the pass runs before it gives the loop a turn. */
  slice?: TimeSlice;
}

const PIECE_BYTES = 64 * 1024;
/** Bytes walked between two looks at the clock. */
const CLOCK_EVERY = 16 * 1024;

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
const endsScalar = (b: number) =>
  isSpace(b) || b === COMMA || b === CLOSE_OBJECT || b === CLOSE_ARRAY || b === COLON;

/** What an open container expects next. */
const enum Expect {
  /** A value, or the close of an empty array / the first key or close of an empty object. */
  FirstOrClose,
  Value,
  Key,
  Colon,
  CommaOrClose,
}

interface Frame {
  object: boolean;
  start: number;
  expect: Expect;
  /** Keys the object has so far (as colons), for the keys limit. */
  keys: number;
  /** Its children so far: [start, end) of each key (objects) and value, in order. */
  spans: number[];
  /** Children already built (containers larger than a piece), by their value's index. */
  built?: Map<number, unknown>;
}

/**
 * The value of `text` as `JSON.parse` would make it, or a `JsonTextRefused`
 * (malformed text; depth past `maxDepth`; an object with more than `maxKeys`
 * keys; more than `maxNodes` values counted as `jsonTextExcess` counts them).
 */
export async function parseJsonInSlices(
  text: Buffer,
  limits: SlicedJsonLimits,
  options: SlicedJsonOptions = {},
): Promise<unknown> {
  const pieceBytes = options.pieceBytes ?? PIECE_BYTES;
  // A small text costs less than a slice: checked and parsed at once, natively.
  if (text.length <= pieceBytes) {
    const excess = jsonTextExcess(text, limits.maxDepth, limits.maxKeys, limits.maxNodes);
    if (excess) throw new JsonTextRefused(excess);
    try {
      return JSON.parse(text.toString('utf8').replace(/^\uFEFF/, ''));
    } catch {
      throw malformed();
    }
  }
  return new SlicedJsonParse(text, limits, pieceBytes, options.slice).run();
}

class SlicedJsonParse {
  private readonly stack: Frame[] = [];
  private nodes = 0;
  private root: { span?: [number, number]; value?: unknown; built: boolean } = { built: false };
  private readonly slice: TimeSlice;

  constructor(
    private readonly text: Buffer,
    private readonly limits: SlicedJsonLimits,
    private readonly pieceBytes: number,
    slice?: TimeSlice,
  ) {
    this.slice = slice ?? new TimeSlice();
  }

  async run(): Promise<unknown> {
    const { text } = this;
    let i = text.length >= 3 && text[0] === 0xef && text[1] === 0xbb && text[2] === 0xbf ? 3 : 0;
    let nextClock = i + CLOCK_EVERY;
    const end = text.length;
    while (i < end) {
      if (i >= nextClock) {
        nextClock = i + CLOCK_EVERY;
        await this.slice.turn();
      }
      const byte = text[i];
      if (isSpace(byte)) {
        i++;
        continue;
      }
      const frame = this.stack[this.stack.length - 1];
      if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
        if (!frame || frame.object !== (byte === CLOSE_OBJECT)) throw malformed();
        if (frame.expect !== Expect.CommaOrClose && frame.expect !== Expect.FirstOrClose) throw malformed();
        this.stack.pop();
        await this.closed(frame, i + 1);
        i++;
        continue;
      }
      if (byte === COMMA) {
        if (!frame || frame.expect !== Expect.CommaOrClose) throw malformed();
        if (++this.nodes > this.limits.maxNodes) throw new JsonTextRefused('nodes');
        frame.expect = frame.object ? Expect.Key : Expect.Value;
        i++;
        continue;
      }
      if (byte === COLON) {
        if (!frame || frame.expect !== Expect.Colon) throw malformed();
        if (++frame.keys > this.limits.maxKeys) throw new JsonTextRefused('keys');
        frame.expect = Expect.Value;
        i++;
        continue;
      }
      // A key or a value starts here.
      const key = frame !== undefined && frame.object && frame.expect !== Expect.Value;
      if (key) {
        if (byte !== QUOTE || (frame.expect !== Expect.Key && frame.expect !== Expect.FirstOrClose))
          throw malformed();
        const close = stringEnd(text, i + 1);
        frame.spans.push(i, close + 1);
        frame.expect = Expect.Colon;
        i = close + 1;
        continue;
      }
      if (
        frame
          ? frame.expect !== Expect.Value && frame.expect !== Expect.FirstOrClose
          : this.root.span || this.root.built
      )
        throw malformed();
      if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
        if (this.stack.length + 1 > this.limits.maxDepth) throw new JsonTextRefused('depth');
        if (++this.nodes > this.limits.maxNodes) throw new JsonTextRefused('nodes');
        if (frame) frame.expect = Expect.CommaOrClose;
        this.stack.push({
          object: byte === OPEN_OBJECT,
          start: i,
          expect: Expect.FirstOrClose,
          keys: 0,
          spans: [],
        });
        i++;
        continue;
      }
      // A scalar: a string to its closing quote, else to the next delimiter (JSON.parse judges it).
      let close: number;
      if (byte === QUOTE) close = stringEnd(text, i + 1) + 1;
      else {
        close = i + 1;
        while (close < end && !endsScalar(text[close]) && text[close] !== QUOTE) close++;
      }
      if (frame) {
        frame.spans.push(i, close);
        frame.expect = Expect.CommaOrClose;
      } else this.root.span = [i, close];
      i = close;
    }
    if (this.stack.length > 0) throw malformed();
    if (this.root.built) return this.root.value;
    if (!this.root.span) throw malformed();
    return this.parse(this.root.span[0], this.root.span[1]);
  }

  /** A container closed at `end`: a span of its parent's when small, else built from its pieces. */
  private async closed(frame: Frame, end: number): Promise<void> {
    const parent = this.stack[this.stack.length - 1];
    const small = end - frame.start <= this.pieceBytes;
    if (small) {
      if (parent) parent.spans.push(frame.start, end);
      else this.root.span = [frame.start, end];
      return;
    }
    const value = await this.build(frame);
    if (parent) {
      parent.built ??= new Map();
      parent.built.set(parent.spans.length, value);
      parent.spans.push(frame.start, end);
    } else {
      this.root.value = value;
      this.root.built = true;
    }
  }

  /** A large container from its children: runs of small ones parsed in one native call each. */
  private async build(frame: Frame): Promise<unknown> {
    const { spans, built } = frame;
    // An object's child is its key's span and its value's; an array's, its value's.
    const step = frame.object ? 4 : 2;
    const isBuilt = (k: number) => built?.has(k + step - 2) === true;
    const target: Record<string, unknown> | unknown[] = frame.object ? {} : [];
    for (let k = 0; k < spans.length;) {
      if (isBuilt(k)) {
        if (Array.isArray(target)) target.push(built!.get(k));
        else define(target, this.parse(spans[k], spans[k + 1]) as string, built!.get(k + 2));
        k += step;
      } else {
        let m = k + step;
        while (m < spans.length && !isBuilt(m) && spans[m + step - 1] - spans[k] <= this.pieceBytes)
          m += step;
        const run = this.parse(spans[k], spans[m - 1], frame.object ? '{' : '[', frame.object ? '}' : ']');
        if (Array.isArray(target)) for (const item of run as unknown[]) target.push(item);
        else
          for (const key of Object.keys(run as object))
            define(target, key, (run as Record<string, unknown>)[key]);
        k = m;
      }
      await this.slice.turn();
    }
    return target;
  }

  private parse(start: number, end: number, open = '', close = ''): unknown {
    try {
      return JSON.parse(open + this.text.toString('utf8', start, end) + close);
    } catch {
      throw malformed();
    }
  }
}

/** As JSON.parse sets a member: `__proto__` an own property, not the prototype. */
function define(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  else object[key] = value;
}

const malformed = () => new JsonTextRefused('malformed');

/** The index of the quote closing a string whose text starts at `start`, or a refusal. */
function stringEnd(text: Buffer, start: number): number {
  const at = jsonStringEnd(text, start);
  if (at < 0) throw malformed();
  return at;
}
