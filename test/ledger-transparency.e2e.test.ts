import assert from 'node:assert/strict';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { rootFromPath, rootsFromSubproof } from '#des/ledger/testing';
import { type Mode, modeEnv, startApp, type TestApp } from './support/app';
import { type Checkpoint, checkpointCovering } from './support/ledger';

const b64 = (s: string) => Buffer.from(s, 'base64');

/** Checks a C2SP signed note against a verifier key, by the spec (not the service's code): its text. */
function openedBy(note: string, vkey: string): string {
  const [, name, hash, key] = /^([^+]+)\+([0-9a-f]{8})\+(.+)$/.exec(vkey)!;
  const raw = b64(key);
  assert.equal(raw[0], 0x01, 'an Ed25519 key');
  const publicKey = raw.subarray(1);
  const keyHash = createHash('sha256')
    .update(Buffer.concat([Buffer.from(`${name}\n`), Buffer.from([1]), publicKey]))
    .digest()
    .subarray(0, 4);
  assert.equal(keyHash.toString('hex'), hash);
  const split = note.lastIndexOf('\n\n');
  const text = note.slice(0, split + 1);
  const [, signer, signature] = /^— (\S+) (\S+)$/.exec(note.slice(split + 2, -1))!;
  assert.equal(signer, name);
  const sig = b64(signature);
  assert.deepEqual(sig.subarray(0, 4), keyHash);
  const jwk = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: publicKey.toString('base64url') },
    format: 'jwk',
  });
  assert.ok(verify(null, Buffer.from(text), jwk, sig.subarray(4)), 'the signature verifies');
  return text;
}

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`the transparency log: signed checkpoints and proofs (${mode} mode)`, () => {
    let t: TestApp;
    let first: Checkpoint;

    const covering = () => checkpointCovering(t, 'acme');

    before(async () => {
      t = await startApp({ mode, env: await modeEnv(mode, { DES_LEDGER_CHECKPOINT_MS: '200' }) });
      await t.http.put('/api/v2/flows/acme').send({ name: 'web' }).expect(201);
      await t.http.put('/api/v2/trails/acme/web').send({ name: 'main-1' }).expect(201);
      first = await covering();
    });
    after(async () => t.close());

    it('signs each checkpoint with the deployment key, in the C2SP note format', async () => {
      const key = (await t.http.get('/api/v2/ledger/acme/key').expect(200)).body as {
        name: string;
        public_key: string;
        vkey: string;
      };
      assert.equal(b64(key.public_key).length, 32);
      const text = openedBy(first.note, key.vkey);
      assert.equal(text, `${first.origin}\n${first.tree_size}\n${first.root_hash}\n`);
      assert.equal(first.origin, `${key.name}/acme`);
    });

    it('proves each event is in the checkpointed tree, by an independent reading of RFC 9162', async () => {
      for (let index = 0; index < first.tree_size; index++) {
        const entry = (await t.http.get(`/api/v2/ledger/acme/entries/${index}`).expect(200)).body as {
          canonical: string;
          leaf_hash: string;
          position: number;
        };
        const leaf = createHash('sha256')
          .update(Buffer.from([0]))
          .update(entry.canonical)
          .digest();
        assert.equal(entry.leaf_hash, leaf.toString('base64'));
        assert.equal(JSON.parse(entry.canonical).metadata.org, 'acme', 'only its own events');
        const proof = (await t.http.get('/api/v2/ledger/acme/proofs/inclusion').query({ index }).expect(200))
          .body as {
          tree_size: number;
          hashes: string[];
        };
        assert.equal(proof.tree_size, first.tree_size);
        const root = rootFromPath(index, proof.tree_size, leaf, proof.hashes.map(b64));
        assert.equal(root?.toString('base64'), first.root_hash, `leaf ${index}`);
      }
    });

    it('proves a later checkpoint extends an earlier one, and answers the one kept by an instant', async () => {
      await t.http.put('/api/v2/trails/acme/web').send({ name: 'main-2' }).expect(201);
      await t.http.put('/api/v2/environments/acme').send({ name: 'prod', type: 'K8S' }).expect(201);
      const later = await covering();
      assert.ok(later.tree_size > first.tree_size);
      const proof = (
        await t.http
          .get('/api/v2/ledger/acme/proofs/consistency')
          .query({ from: first.tree_size })
          .expect(200)
      ).body as { from: number; to: number; hashes: string[] };
      assert.deepEqual([proof.from, proof.to], [first.tree_size, later.tree_size]);
      const roots = rootsFromSubproof(
        first.tree_size,
        later.tree_size,
        proof.hashes.map(b64),
        true,
        b64(first.root_hash),
      );
      assert.deepEqual(
        [roots?.before.toString('base64'), roots?.after.toString('base64')],
        [first.root_hash, later.root_hash],
      );
      const then = (
        await t.http.get('/api/v2/ledger/acme/checkpoint').query({ at: first.recorded_at }).expect(200)
      ).body as Checkpoint;
      assert.equal(then.tree_size, first.tree_size);
    });

    it('refuses what lies beyond the latest checkpoint, naming it; 404 before any checkpoint', async () => {
      const latest = (await t.http.get('/api/v2/ledger/acme/checkpoint').expect(200)).body as Checkpoint;
      const refused = async (path: string, query: Record<string, number | string>, field: string) => {
        const res = await t.http.get(path).query(query);
        assert.equal(res.status, 400, res.text);
        assert.ok(res.body.errors?.[field], JSON.stringify(res.body));
      };
      await refused(`/api/v2/ledger/acme/entries/${latest.tree_size}`, {}, 'index');
      await refused('/api/v2/ledger/acme/proofs/inclusion', { index: latest.tree_size }, 'index');
      await refused(
        '/api/v2/ledger/acme/proofs/inclusion',
        { index: 0, tree_size: latest.tree_size + 1 },
        'tree_size',
      );
      await refused('/api/v2/ledger/acme/proofs/consistency', { from: latest.tree_size + 1 }, 'from');
      await refused('/api/v2/ledger/acme/proofs/consistency', { from: 1, to: latest.tree_size + 5 }, 'to');
      await refused('/api/v2/ledger/acme/entries/x', {}, 'index');
      const none = await t.http.get('/api/v2/ledger/acme/checkpoint').query({ at: 1_000_000_000 });
      assert.deepEqual([none.status, none.body.message], [404, 'No checkpoint yet']);
    });
  });
}
