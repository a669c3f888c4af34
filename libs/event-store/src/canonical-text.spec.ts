import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { stringify } from 'safe-stable-stringify';
import { appendSize, serializedAppendSize } from './append-size';
import { canonicalEventText, canonicalJson, canonicalTextOf } from './canonical-text';

/** The text as first defined: the canonical JSON of the whole event (its leaves, and the retired chain, hash it). */
const referenceText = (e: {
  stream: string;
  type: string;
  data: unknown;
  metadata: unknown;
  recordedAt: number;
}) =>
  stringify({
    stream: e.stream,
    type: e.type,
    data: e.data,
    metadata: e.metadata,
    recorded_at: e.recordedAt,
  });

const text = fc.string({ unit: 'binary', maxLength: 12 });
const json = fc.dictionary(text, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 });
const event = fc.record({
  stream: text,
  type: text,
  data: json,
  metadata: json,
  recordedAt: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
});

describe('canonical event text', () => {
  it('given any event, when built from its canonical data and metadata, then it is the canonical JSON of the whole event', () => {
    fc.assert(
      fc.property(event, (e) => {
        const expected = referenceText(e);
        assert.equal(canonicalTextOf(e), expected);
        assert.equal(
          canonicalEventText({ ...e, data: canonicalJson(e.data), metadata: canonicalJson(e.metadata) }),
          expected,
        );
      }),
      { numRuns: 500 },
    );
  });

  it('given any event data, when its stored text is read back, then a verifier recomputes the same text and sees the same values', () => {
    fc.assert(
      fc.property(json, (data) => {
        const stored = canonicalJson(data);
        assert.equal(canonicalJson(JSON.parse(stored)), stored);
        assert.deepEqual(JSON.parse(stored), JSON.parse(JSON.stringify(data)));
      }),
      { numRuns: 500 },
    );
  });

  it('given any events, then their size from the canonical texts is the size KurrentDB counts', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ id: text, type: text, data: json, metadata: json }), { minLength: 1 }),
        (events) => {
          const serialized = events.map((e) => ({
            type: e.type,
            data: canonicalJson(e.data),
            metadata: canonicalJson(e.metadata),
          }));
          assert.equal(serializedAppendSize(serialized), appendSize(events as never));
        },
      ),
    );
  });

  it('keeps a known text: the leaves of trees already built still verify', () => {
    const text = canonicalTextOf({
      stream: 'trail-acme-svc-t1',
      type: 'attestation_recorded',
      data: { name: 'unit', b: [1, { z: null, a: 'é' }] },
      metadata: { org: 'acme', actor: 'ci' },
      recordedAt: 1_790_000_000_000_000,
    });
    assert.equal(createHash('sha256').update(text).digest('hex'), KNOWN_TEXT_SHA256);
  });

  it('refuses a cycle, as JSON does, instead of writing it as text', () => {
    const data: Record<string, unknown> = { a: 1 };
    data.self = data;
    assert.throws(() => canonicalJson(data), TypeError);
  });
});

// The SHA-256 of the text as the first implementation wrote it.
const KNOWN_TEXT_SHA256 = '1d4d4c4e327ecf86166881308e2d1452c05c7cff0be369a4b7bf984ea2243d19';
