import type { Response } from 'express';
import { nextTurn, TimeSlice } from '#des/event-store';

/** Text written to the socket at a time; the loop gets a turn between two. */
const SLICE_CHARS = 64 * 1024;
/** How deep objects and arrays are written member by member; below, a member is stringified whole. */
const STREAMED_DEPTH = 4;

const skipped = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol';

/**
 * `JSON.stringify(value)`, the same text, in pieces: objects and arrays down
 * to `depth` levels are written member by member, deeper values whole (one
 * attestation, one event: each bounded by what one write may carry). With
 * `indent` (the indentation the value starts at: '' for a whole text), the
 * text of `JSON.stringify(value, null, 2)` instead.
 */
export function* jsonPieces(value: unknown, depth = STREAMED_DEPTH, indent?: string): Generator<string> {
  const pretty = indent !== undefined;
  if (
    depth === 0 ||
    value === null ||
    typeof value !== 'object' ||
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  ) {
    const whole = JSON.stringify(value, null, pretty ? 2 : undefined) ?? 'null';
    // Line breaks in JSON text are only the layout's (a string's own are escaped).
    yield indent ? whole.replace(/\n/g, `\n${indent}`) : whole;
    return;
  }
  const inner = pretty ? `${indent}  ` : undefined;
  const line = pretty ? `\n${inner}` : '';
  if (Array.isArray(value)) {
    if (value.length === 0) return yield '[]';
    yield '[';
    for (let i = 0; i < value.length; i++) {
      yield `${i > 0 ? ',' : ''}${line}`;
      if (skipped(value[i])) yield 'null';
      else yield* jsonPieces(value[i], depth - 1, inner);
    }
    return yield pretty ? `\n${indent}]` : ']';
  }
  let first = true;
  for (const [key, member] of Object.entries(value)) {
    if (skipped(member)) continue;
    yield `${first ? '{' : ','}${line}${JSON.stringify(key)}:${pretty ? ' ' : ''}`;
    first = false;
    yield* jsonPieces(member, depth - 1, inner);
  }
  yield first ? '{}' : pretty ? `\n${indent}}` : '}';
}

/** The text of `pieces` as UTF-8, gathered in slices that give the loop turns (a bundle's records). */
export async function bytesInSlices(pieces: Iterable<string>): Promise<Buffer> {
  const slice = new TimeSlice();
  const chunks: Buffer[] = [];
  let pending: string[] = [];
  let size = 0;
  for (const piece of pieces) {
    pending.push(piece);
    size += piece.length;
    if (size >= SLICE_CHARS) {
      chunks.push(Buffer.from(pending.join(''), 'utf8'));
      pending = [];
      size = 0;
    }
    if (slice.due) await slice.turn();
  }
  chunks.push(Buffer.from(pending.join(''), 'utf8'));
  return Buffer.concat(chunks);
}

/**
 * Answers 200 with `value` as JSON written in slices with back-pressure: a
 * large answer (a trail of many large attestations) never holds the loop for
 * its whole serialization, and is never in memory as one string; a client
 * that reads slowly holds a slice or two. The same text as `res.json`.
 */
export async function sendJson(res: Response, value: unknown): Promise<void> {
  res.status(200).type('application/json; charset=utf-8');
  let pending = '';
  for (const piece of jsonPieces(value)) {
    pending += piece;
    if (pending.length < SLICE_CHARS) continue;
    if (!(await sendSlice(res, pending))) return;
    pending = '';
  }
  if (pending && !(await sendSlice(res, pending))) return;
  res.end();
}

/** Writes one slice; waits for the socket to take it when it is full, and yields the loop; false once the client left. */
async function sendSlice(res: Response, text: string): Promise<boolean> {
  if (res.destroyed) return false;
  if (!res.write(text, 'utf8')) return drainedOrClosed(res);
  await nextTurn();
  return !res.destroyed;
}

/** true once the socket takes more; false if the client left first. */
function drainedOrClosed(res: Response): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (drained: boolean) => {
      res.off('drain', onDrain).off('close', onClose);
      resolve(drained);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    res.on('drain', onDrain).on('close', onClose);
  });
}
