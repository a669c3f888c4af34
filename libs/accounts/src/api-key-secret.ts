import { hash, randomBytes } from 'node:crypto';

export const KEY_PREFIX = 'des_';

/** A new API key: 192 random bits behind a recognisable prefix. Shown once, never stored. */
export function newApiKey(): string {
  return KEY_PREFIX + randomBytes(24).toString('base64url');
}

/** What is stored and looked up instead of the key. */
export function hashApiKey(key: string): string {
  // Node's one-shot hash: the same digest without a Hash object per request.
  return hash('sha256', key, 'hex');
}

/** The key from `Bearer <key>` or `Basic base64(<key>:<ignored>)`; undefined when absent or malformed. */
export function keyFromAuthorization(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const [scheme, value, ...rest] = header.trim().split(/\s+/);
  if (!value || rest.length > 0) return undefined;
  if (/^bearer$/i.test(scheme)) return value;
  if (/^basic$/i.test(scheme)) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const user = decoded.split(':', 1)[0];
    return user || undefined;
  }
  return undefined;
}
