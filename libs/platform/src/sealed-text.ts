import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1.';

/**
 * Text encrypted with AES-256-GCM under `key`, bound to `context` (the
 * sealed text opens only under the same context): `v1.` then base64url of
 * the 12-byte nonce, the 16-byte tag and the ciphertext.
 */
export function seal(key: Buffer, context: string, text: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce).setAAD(Buffer.from(context, 'utf8'));
  const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return VERSION + Buffer.concat([nonce, cipher.getAuthTag(), sealed]).toString('base64url');
}

/** The text `seal` sealed; throws when the key, the context or a byte differs. */
export function unseal(key: Buffer, context: string, sealedText: string): string {
  if (!sealedText.startsWith(VERSION)) throw new Error('not a sealed text');
  const raw = Buffer.from(sealedText.slice(VERSION.length), 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12))
    .setAAD(Buffer.from(context, 'utf8'))
    .setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
