import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { stringify } from 'safe-stable-stringify';
import { appendSize, serializedAppendSize } from './append-size';
import { canonicalJson, linkHash, linkHashOfCanonical } from './ledger';

/** The link as first defined: the canonical JSON of the whole event, hashed after the previous hash. */
function referenceLink(
  previous: string,
  e: { stream: string; type: string; data: unknown; metadata: unknown; recordedAt: number },
): string {
  const content = stringify({
    stream: e.stream,
    type: e.type,
    data: e.data,
    metadata: e.metadata,
    recorded_at: e.recordedAt,
  });
  return createHash('sha256')
    .update(previous)
    .update(content ?? '')
    .digest('hex');
}

const text = fc.string({ unit: 'binary', maxLength: 12 });
const json = fc.dictionary(text, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 });
const event = fc.record({
  stream: text,
  type: text,
  data: json,
  metadata: json,
  recordedAt: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
});

describe('ledger links', () => {
  it('given any event, when linked from its canonical texts, then the link is the one the chain has always used', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), maxLength: 64 }),
        event,
        (previous, e) => {
          const expected = referenceLink(previous, e);
          assert.equal(linkHash(previous, e), expected);
          assert.equal(
            linkHashOfCanonical(previous, {
              ...e,
              data: canonicalJson(e.data),
              metadata: canonicalJson(e.metadata),
            }),
            expected,
          );
        },
      ),
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

  it('keeps a known link: the chain of logs already written still verifies', () => {
    const link = linkHash('', {
      stream: 'trail-acme-svc-t1',
      type: 'attestation_recorded',
      data: { name: 'unit', b: [1, { z: null, a: 'é' }] },
      metadata: { org: 'acme', actor: 'ci' },
      recordedAt: 1_790_000_000_000_000,
    });
    assert.equal(link, KNOWN_LINK);
  });

  it('refuses a cycle, as JSON does, instead of writing it as text', () => {
    const data: Record<string, unknown> = { a: 1 };
    data.self = data;
    assert.throws(() => canonicalJson(data), TypeError);
  });
});

// Computed with the link's first implementation.
const KNOWN_LINK = '1d4d4c4e327ecf86166881308e2d1452c05c7cff0be369a4b7bf984ea2243d19';
