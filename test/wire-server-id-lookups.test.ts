import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MongoClient } from 'mongodb';
import { type Engine, mongoEngine, uniqueName } from './support/engines';
import { idLookupPlan } from './support/wire-servers';

/**
 * The tests' MongoDB-wire server finds a document by `_id` through an index, as
 * MongoDB does, also when the filter has other keys beside it: every projected
 * write is an upsert guarded by `{_id, _pos: {$lt}}` (ADR 0049). Stock FerretDB v1
 * on SQLite scanned and decoded the whole collection for each one, so the
 * server-mode fairness tests measured the wire server's scans, not the service.
 */
const SCANNED = /^SCAN |Seq Scan|COLLSCAN/;
const INDEXED = /USING INDEX|Index Scan|IDHACK|IXSCAN|EXPRESS/;

describe('the wire server the tests use: lookups by _id', () => {
  let engine: Engine;
  let client: MongoClient;
  const database = uniqueName('id_lookups');

  before(async () => {
    engine = await mongoEngine();
    client = await new MongoClient(engine.url).connect();
    const docs = Array.from({ length: 200 }, (_, i) => ({ _id: `doc-${i}` as never, _pos: i, org: 'acme' }));
    await client.db(database).collection('docs').insertMany(docs);
  });
  after(async () => {
    await client?.close();
    await engine?.stop();
  });

  for (const [name, beside] of [
    ['alone', {}],
    ['beside a position guard', { _pos: { $lt: 1_000 } }],
  ] as const) {
    it(`finds one by _id ${name} from an index`, async () => {
      const plan = await idLookupPlan(engine.url, database, 'docs', 'doc-150', beside);
      assert.doesNotMatch(plan, SCANNED, `${engine.description}: ${plan}`);
      assert.match(plan, INDEXED, `${engine.description}: ${plan}`);
    });
  }

  it('still applies the whole filter: a guard that does not hold matches nothing, one that holds updates', async () => {
    const docs = client.db(database).collection<{ _id: string; _pos: number; seen?: boolean }>('docs');
    const refused = await docs.updateOne({ _id: 'doc-7', _pos: { $lt: 7 } }, { $set: { seen: true } });
    assert.equal(refused.matchedCount, 0);
    const applied = await docs.updateOne({ _id: 'doc-7', _pos: { $lt: 8 } }, { $set: { seen: true } });
    assert.equal(applied.matchedCount, 1);
    assert.deepEqual(await docs.findOne({ _id: 'doc-7', org: 'acme' }), {
      _id: 'doc-7',
      _pos: 7,
      org: 'acme',
      seen: true,
    });
    assert.equal(await docs.countDocuments({ _id: 'doc-7', org: 'other' }), 0);
    assert.equal(await docs.countDocuments({ org: 'acme' }), 200);
  });
});
