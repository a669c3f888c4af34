import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  INDEX_CHECKPOINT_STREAM,
  INDEX_DEPTH,
  indexStreamOf,
  isIndexStream,
  linkData,
  linksOf,
  linkTarget,
  scopeFor,
  scopesOf,
  tailNeeded,
} from './index-scopes';

describe('index scopes', () => {
  it("puts an event into its stream's organization scope and the scope of the first part of its id", () => {
    assert.equal(INDEX_DEPTH, 2);
    assert.deepEqual(scopesOf('trail-acme/web/web-1'), ['trail-acme/', 'trail-acme/web/']);
    assert.deepEqual(scopesOf('ledger-acme/exports/a/b'), ['ledger-acme/', 'ledger-acme/exports/']);
    assert.deepEqual(scopesOf('environment-acme/prod'), ['environment-acme/']);
    assert.deepEqual(scopesOf('environment-acme/'), ['environment-acme/']);
    assert.deepEqual(scopesOf('actions-acme'), [], 'a stream without a `/` is in no scope');
  });

  it('reads a prefix through the narrowest indexed scope that holds it', () => {
    // What the projections declare (their `sources`): every one is a scope itself.
    for (const prefix of ['trail-acme/', 'trail-acme/web/', 'environment-acme/', 'notification-acme/'])
      assert.equal(scopeFor(prefix), prefix);
    assert.equal(scopeFor('trail-acme/web'), 'trail-acme/', 'a prefix that stops inside a part');
    assert.equal(scopeFor('trail-acme/web/web-1/'), 'trail-acme/web/', 'deeper than the index');
    assert.equal(scopeFor('trail-acme/web/web-1'), 'trail-acme/web/', 'a whole stream name');
    assert.equal(scopeFor('trail-'), undefined, 'no `/`: not indexed');
    assert.equal(scopeFor(''), undefined);
  });

  it('given any stream and prefix, when the stream is under the prefix, then it is in the scope the prefix is read through', () => {
    const part = fc.stringMatching(/^[a-z.~-]{0,4}$/);
    const name = fc.array(part, { minLength: 1, maxLength: 5 }).map((parts) => parts.join('/'));
    fc.assert(
      fc.property(name, fc.nat(30), (stream, cut) => {
        const prefix = stream.slice(0, cut);
        const scope = scopeFor(prefix);
        if (scope === undefined) return;
        assert.ok(prefix.startsWith(scope), 'the scope holds the prefix');
        assert.ok(scopesOf(stream).includes(scope), `${stream} is in ${scope}, read for ${prefix}`);
      }),
    );
  });

  it("names index streams apart from every aggregate's streams and from system streams", () => {
    for (const stream of [indexStreamOf('trail-acme/'), INDEX_CHECKPOINT_STREAM]) {
      assert.ok(isIndexStream(stream));
      assert.ok(!stream.startsWith('$'), 'writable without the system streams ACL');
      assert.doesNotMatch(stream, /^[a-z_]+-/, 'no aggregate stream starts like it');
    }
    assert.ok(!isIndexStream('trail-acme/web/1'));
  });

  it("groups a batch's links by index stream, each in position order, and never indexes the index", () => {
    const e = (stream: string, position: number) => ({ stream, position });
    const batch = [
      e('trail-acme/web/1', 10),
      e('environment-acme/prod', 11),
      e(indexStreamOf('trail-acme/'), 12),
      e('trail-acme/api/1', 13),
      e('trail-acme/web/2', 14),
      e('actions-acme', 15),
    ];
    const links = linksOf(batch);
    assert.deepEqual(
      [...links].map(([stream, events]) => [stream, events.map((x) => x.position)]),
      [
        [indexStreamOf('trail-acme/'), [10, 13, 14]],
        [indexStreamOf('trail-acme/web/'), [10, 14]],
        [indexStreamOf('environment-acme/'), [11]],
        [indexStreamOf('trail-acme/api/'), [13]],
      ],
    );
  });

  it("writes a link as KurrentDB's `<revision>@<stream>` and reads its target back from the metadata", () => {
    assert.equal(linkData({ stream: 'trail-acme/web/1', revision: 4 }), '4@trail-acme/web/1');
    assert.deepEqual(linkTarget({ position: 4096, recorded_at: 1_700_000_000_000_000 }), {
      position: 4096,
      recorded_at: 1_700_000_000_000_000,
    });
    for (const bad of [
      undefined,
      null,
      'x',
      {},
      { position: 0, recorded_at: 1 },
      { position: 1.5, recorded_at: 1 },
    ])
      assert.equal(linkTarget(bad), undefined, JSON.stringify(bad));
  });

  it('reads the log after the checkpoint only when the bound reaches past it', () => {
    const covered = { position: 100, recordedAt: 5_000 };
    const none = Number.MAX_SAFE_INTEGER;
    assert.equal(tailNeeded(covered, { untilPosition: none, untilRecordedAt: none }), true, 'now');
    assert.equal(tailNeeded(covered, { untilPosition: 100, untilRecordedAt: none }), false);
    assert.equal(tailNeeded(covered, { untilPosition: 101, untilRecordedAt: none }), true);
    assert.equal(tailNeeded(covered, { untilPosition: none, untilRecordedAt: 4_999 }), false);
    assert.equal(
      tailNeeded(covered, { untilPosition: none, untilRecordedAt: 5_000 }),
      true,
      'a later event may share the instant',
    );
  });
});
