import assert from 'node:assert/strict';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { describe, it } from 'node:test';
import { checkpointText, noteSigner, openNote, parseCheckpoint, parseVkey, signNote } from './signed-note';

const seed = createHash('sha256').update('test seed').digest();
const signer = noteSigner('des.example/ledger', seed);
const body = checkpointText({ origin: 'des.example/acme', treeSize: 42, rootHash: Buffer.alloc(32, 7) });

describe('signed notes and checkpoints (C2SP)', () => {
  it('writes a checkpoint as origin, size and base64 root, each on its line', () => {
    assert.equal(body, `des.example/acme\n42\n${Buffer.alloc(32, 7).toString('base64')}\n`);
    assert.deepEqual(parseCheckpoint(body), {
      origin: 'des.example/acme',
      treeSize: 42,
      rootHash: Buffer.alloc(32, 7),
    });
    assert.equal(parseCheckpoint('des.example/acme\n042\nAAAA\n'), null);
  });

  it('signs with Ed25519 over the text, after a blank line, naming the key and its hash', () => {
    const note = signNote(body, signer);
    const [text, signatures] = [note.slice(0, body.length), note.slice(body.length)];
    assert.equal(text, body);
    const match = /^\n— des\.example\/ledger ([A-Za-z0-9+/=]+)\n$/.exec(signatures);
    assert.ok(match, signatures);
    const raw = Buffer.from(match[1], 'base64');
    assert.equal(raw.length, 4 + 64);
    // The key hash as the spec defines it: SHA-256(name ‖ 0x0A ‖ 0x01 ‖ key), first 4 bytes.
    const expected = createHash('sha256')
      .update(Buffer.concat([Buffer.from('des.example/ledger\n'), Buffer.from([1]), signer.publicKey]))
      .digest()
      .subarray(0, 4);
    assert.deepEqual(raw.subarray(0, 4), expected);
    const key = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: signer.publicKey.toString('base64url') },
      format: 'jwk',
    });
    assert.ok(verify(null, Buffer.from(body), key, raw.subarray(4)));
  });

  it('opens a note with the verifier key, and names what is wrong with one that does not verify', () => {
    const note = signNote(body, signer);
    assert.deepEqual(openNote(note, signer.vkey), { text: body });
    assert.deepEqual(parseVkey(signer.vkey), {
      name: signer.name,
      keyHash: signer.keyHash,
      publicKey: signer.publicKey,
    });
    assert.match(signer.vkey, /^des\.example\/ledger\+[0-9a-f]{8}\+[A-Za-z0-9+/]{43}[A-Za-z0-9+/=]=?$/);
    const changed = note.replace('\n42\n', '\n43\n');
    assert.deepEqual(openNote(changed, signer.vkey), {
      error: 'the signature of des.example/ledger does not verify',
    });
    const other = noteSigner('des.example/ledger', createHash('sha256').update('another').digest());
    assert.deepEqual(openNote(note, other.vkey), { error: 'no signature by des.example/ledger' });
    assert.throws(() => parseVkey(signer.vkey.replace(/\+[0-9a-f]{8}\+/, '+00000000+')), /does not match/);
    assert.throws(() => noteSigner('has space', seed), /no space/);
  });
});
