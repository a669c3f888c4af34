import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';

/**
 * C2SP signed notes (c2sp.org/signed-note) with Ed25519 keys, and the
 * transparency-log checkpoints they carry (c2sp.org/tlog-checkpoint).
 */

/** The signature algorithm byte of an Ed25519 key in a note's key hash and verifier key. */
const ED25519 = 0x01;
/** A PKCS #8 Ed25519 private key is this prefix and the 32-byte seed (RFC 8410). */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface NoteSigner {
  name: string;
  /** The 32 raw bytes of the Ed25519 public key. */
  publicKey: Buffer;
  /** The first 4 bytes of SHA-256(name ‖ 0x0A ‖ 0x01 ‖ public key). */
  keyHash: Buffer;
  /** `<name>+<hex key hash>+<base64(0x01 ‖ public key)>`, as verifiers take it. */
  vkey: string;
  sign(message: Buffer): Buffer;
}

const KEY_NAME = /^[^\s+]+$/;

export function keyHashOf(name: string, publicKey: Buffer): Buffer {
  return createHash('sha256')
    .update(Buffer.from(`${name}\n`, 'utf8'))
    .update(Buffer.from([ED25519]))
    .update(publicKey)
    .digest()
    .subarray(0, 4);
}

/** A note signer from a 32-byte Ed25519 seed. */
export function noteSigner(name: string, seed: Buffer): NoteSigner {
  if (!KEY_NAME.test(name)) throw new Error(`a key name has no space or '+': ${JSON.stringify(name)}`);
  if (seed.length !== 32) throw new Error('an Ed25519 seed is 32 bytes');
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const publicKey = createPublicKey(key).export({ format: 'der', type: 'spki' }).subarray(-32);
  const keyHash = keyHashOf(name, publicKey);
  return {
    name,
    publicKey,
    keyHash,
    vkey: `${name}+${keyHash.toString('hex')}+${Buffer.concat([Buffer.from([ED25519]), publicKey]).toString('base64')}`,
    sign: (message) => sign(null, message, key),
  };
}

/** A verifier key string's name, key hash and public key; throws on anything else. */
export function parseVkey(vkey: string): { name: string; keyHash: Buffer; publicKey: Buffer } {
  // The key's base64 may hold '+' itself: the name and the hash come first, then the rest is the key.
  const [, name, hash, key] = /^([^+\s]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/]+={0,2})$/.exec(vkey) ?? [];
  const raw = Buffer.from(key ?? '', 'base64');
  if (!name || raw.length !== 33 || raw[0] !== ED25519)
    throw new Error('not an Ed25519 verifier key: <name>+<8 hex>+<base64 of 0x01 and 32 bytes>');
  const publicKey = raw.subarray(1);
  if (!keyHashOf(name, publicKey).equals(Buffer.from(hash, 'hex')))
    throw new Error("the verifier key's hash does not match its name and key");
  return { name, keyHash: Buffer.from(hash, 'hex'), publicKey };
}

/** `text` (lines ending in a newline) signed: the text, a blank line, and one signature line. */
export function signNote(text: string, signer: NoteSigner): string {
  if (!text.endsWith('\n') || text.includes('\n\n'))
    throw new Error('a note is non-empty lines, each ending in a newline');
  const signature = signer.sign(Buffer.from(text, 'utf8'));
  return `${text}\n— ${signer.name} ${Buffer.concat([signer.keyHash, signature]).toString('base64')}\n`;
}

const publicKeyObject = (raw: Buffer): KeyObject =>
  createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });

/** The note's text when `vkey` signed it; else an error saying why not. */
export function openNote(note: string, vkey: string): { text: string } | { error: string } {
  const { name, keyHash, publicKey } = parseVkey(vkey);
  const split = note.lastIndexOf('\n\n');
  if (split < 0 || !note.endsWith('\n'))
    return { error: 'not a signed note: no blank line before its signatures' };
  const text = note.slice(0, split + 1);
  for (const line of note.slice(split + 2, -1).split('\n')) {
    const match = /^— (\S+) (\S+)$/.exec(line);
    if (!match) return { error: `not a signature line: ${JSON.stringify(line)}` };
    const raw = Buffer.from(match[2], 'base64');
    if (match[1] !== name || !raw.subarray(0, 4).equals(keyHash)) continue;
    const ok = verify(null, Buffer.from(text, 'utf8'), publicKeyObject(publicKey), raw.subarray(4));
    return ok ? { text } : { error: `the signature of ${name} does not verify` };
  }
  return { error: `no signature by ${name}` };
}

export interface Checkpoint {
  origin: string;
  treeSize: number;
  rootHash: Buffer;
}

/** A tlog-checkpoint's body: origin, tree size, base64 root hash, each on its line. */
export const checkpointText = (c: Checkpoint): string =>
  `${c.origin}\n${c.treeSize}\n${c.rootHash.toString('base64')}\n`;

/** A checkpoint body's fields, or null when it is not one. */
export function parseCheckpoint(text: string): Checkpoint | null {
  const [origin, size, root] = text.split('\n');
  const rootHash = Buffer.from(root ?? '', 'base64');
  if (!origin || !/^(0|[1-9]\d*)$/.test(size ?? '') || rootHash.length !== 32) return null;
  return { origin, treeSize: Number(size), rootHash };
}
