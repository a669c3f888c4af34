#!/usr/bin/env node
/**
 * Verifies an evidence bundle of the Delivery Evidence Service, with Node alone (no install):
 *
 *   node verify.mjs <bundle.zip | unzipped directory> [--key <verifier key>]
 *
 * It checks, stopping at the first failure (exit 1, naming it):
 *  1. every member's size and SHA-256 against manifest.json, and that nothing is unlisted;
 *  2. manifest.sig: the deployment's key signed the manifest's SHA-256;
 *  3. checkpoint.txt: a C2SP signed note by the same key over the organization's tree;
 *  4. every line of events.jsonl: its leaf hash is SHA-256(0x00 ‖ canonical text), and its
 *     RFC 9162 inclusion proof leads to the checkpoint's root;
 *  5. checkpoint.tsr, where the bundle has one: an RFC 3161 timestamp of checkpoint.txt (its
 *     message imprint); its signature is the TSA's, which `openssl ts -verify` checks.
 * Without --key it trusts key.txt from the bundle and says so; pin the key an auditor got from
 * the service (`GET /ledger/{org}/key`, its `vkey`) with --key.
 *
 * Written apart from the service's own code on purpose: a verifier that shared the code it
 * checks would repeat its mistakes.
 */
import { createHash, createPublicKey, verify as verifySignature } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inflateRawSync } from 'node:zlib';

export const BUNDLE_FORMAT = 'des-evidence-bundle/1';
const UNSIGNED = new Set(['manifest.json', 'manifest.sig']);

export class BundleFailure extends Error {
  constructor(
    readonly member: string,
    problem: string,
  ) {
    super(`${member}: ${problem}`);
    this.name = 'BundleFailure';
  }
}

export interface BundleReport {
  org: string;
  subject: unknown;
  at: number;
  keyName: string;
  keyPinned: boolean;
  members: number;
  events: number;
  checkpoint: { origin: string; treeSize: number; rootHash: string };
  /** Whether the bundle holds an RFC 3161 timestamp of its checkpoint. */
  timestamped: boolean;
}

const sha256 = (bytes: Uint8Array): Buffer => createHash('sha256').update(bytes).digest();

/** A zip's members by name (stored or deflated; what the service writes). */
export function readZip(zip: Buffer): Map<string, Buffer> {
  let end = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--)
    if (zip.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  if (end < 0) throw new BundleFailure('(bundle)', 'not a zip file');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const members = new Map<string, Buffer>();
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new BundleFailure('(bundle)', 'a broken zip directory');
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    at += 46 + skip;
    if (name.endsWith('/')) continue;
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(start, start + compressed);
    try {
      members.set(name, method === 0 ? raw : method === 8 ? inflateRawSync(raw) : unsupported(method));
    } catch (error) {
      throw new BundleFailure(name, `cannot be read from the zip (${(error as Error).message})`);
    }
  }
  return members;
}

function unsupported(method: number): never {
  throw new Error(`compression method ${method}`);
}

function readDirectory(root: string): Map<string, Buffer> {
  const members = new Map<string, Buffer>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else members.set(relative(root, path).split(sep).join('/'), readFileSync(path));
    }
  };
  walk(root);
  return members;
}

interface VerifierKey {
  name: string;
  keyHash: Buffer;
  publicKey: Buffer;
}

function parseKey(vkey: string, where: string): VerifierKey {
  const [, name, hash, key] = /^([^+\s]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/]+={0,2})$/.exec(vkey.trim()) ?? [];
  const raw = Buffer.from(key ?? '', 'base64');
  if (!name || raw.length !== 33 || raw[0] !== 1)
    throw new BundleFailure(where, 'not an Ed25519 verifier key (<name>+<8 hex>+<base64>)');
  const publicKey = raw.subarray(1);
  const expected = sha256(Buffer.concat([Buffer.from(`${name}\n`), Buffer.from([1]), publicKey])).subarray(
    0,
    4,
  );
  if (!expected.equals(Buffer.from(hash, 'hex')))
    throw new BundleFailure(where, "the key's hash does not match its name and key");
  return { name, keyHash: expected, publicKey };
}

/** The text of a C2SP signed note that `key` signed. */
function openSignedNote(note: string, key: VerifierKey, member: string): string {
  const split = note.lastIndexOf('\n\n');
  if (split < 0 || !note.endsWith('\n')) throw new BundleFailure(member, 'not a signed note');
  const text = note.slice(0, split + 1);
  const publicKey = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: key.publicKey.toString('base64url') },
    format: 'jwk',
  });
  for (const line of note.slice(split + 2, -1).split('\n')) {
    const [, name, signature] = /^— (\S+) (\S+)$/.exec(line) ?? [];
    const raw = Buffer.from(signature ?? '', 'base64');
    if (name !== key.name || !raw.subarray(0, 4).equals(key.keyHash)) continue;
    if (verifySignature(null, Buffer.from(text), publicKey, raw.subarray(4))) return text;
    throw new BundleFailure(member, `the signature of ${key.name} does not verify`);
  }
  throw new BundleFailure(member, `no signature by ${key.name}`);
}

const node = (left: Buffer, right: Buffer) => sha256(Buffer.concat([Buffer.from([1]), left, right]));

/** RFC 9162 §2.1.3.2: the root an inclusion proof leads to from a leaf hash. */
function rootFromInclusion(index: number, size: number, leaf: Buffer, path: Buffer[]): Buffer | null {
  if (index >= size) return null;
  let [fn, sn, r] = [index, size - 1, leaf];
  for (const p of path) {
    if (sn === 0) return null;
    if (fn % 2 === 1 || fn === sn) {
      r = node(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else r = node(r, p);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 ? r : null;
}

interface Manifest {
  format: string;
  org: string;
  subject: unknown;
  at: number;
  checkpoint: { origin: string; tree_size: number; root_hash: string };
  members: { path: string; size: number; sha256: string }[];
}

/** Checks a bundle's members (as read from its zip or directory); throws a BundleFailure naming the first that fails. */
export function verifyMembers(members: Map<string, Buffer>, pinned?: string): BundleReport {
  const text = (name: string) => {
    const bytes = members.get(name);
    if (!bytes) throw new BundleFailure(name, 'missing');
    return bytes.toString('utf8');
  };
  let manifest: Manifest;
  try {
    manifest = JSON.parse(text('manifest.json')) as Manifest;
  } catch (error) {
    if (error instanceof BundleFailure) throw error;
    throw new BundleFailure('manifest.json', 'not JSON');
  }
  if (manifest.format !== BUNDLE_FORMAT || !Array.isArray(manifest.members))
    throw new BundleFailure('manifest.json', `not a ${BUNDLE_FORMAT} manifest`);

  const listed = new Set<string>();
  for (const { path, size, sha256: expected } of manifest.members) {
    const bytes = members.get(path);
    if (!bytes) throw new BundleFailure(path, 'listed in the manifest but missing');
    if (bytes.length !== size || sha256(bytes).toString('hex') !== expected)
      throw new BundleFailure(path, 'its content differs from the SHA-256 the manifest lists');
    listed.add(path);
  }
  for (const name of members.keys())
    if (!listed.has(name) && !UNSIGNED.has(name)) throw new BundleFailure(name, 'not in the manifest');

  const bundled = text('key.txt').trim();
  if (pinned !== undefined && pinned.trim() !== bundled)
    throw new BundleFailure('key.txt', 'not the key given with --key');
  const key = parseKey(pinned ?? bundled, pinned === undefined ? 'key.txt' : '--key');

  const signed = openSignedNote(text('manifest.sig'), key, 'manifest.sig');
  const manifestHash = sha256(members.get('manifest.json') as Buffer).toString('hex');
  if (signed !== `${manifest.checkpoint.origin} evidence bundle\nsha256:${manifestHash}\n`)
    throw new BundleFailure('manifest.json', 'its SHA-256 is not the one manifest.sig signs');

  const [origin, size, root] = openSignedNote(text('checkpoint.txt'), key, 'checkpoint.txt').split('\n');
  const rootHash = Buffer.from(root ?? '', 'base64');
  if (!/^(0|[1-9]\d*)$/.test(size ?? '') || rootHash.length !== 32)
    throw new BundleFailure('checkpoint.txt', 'not a tlog checkpoint');
  const treeSize = Number(size);
  const claimed = manifest.checkpoint;
  if (origin !== claimed.origin || treeSize !== claimed.tree_size || root !== claimed.root_hash)
    throw new BundleFailure('checkpoint.txt', 'not the checkpoint the manifest names');

  let events = 0;
  text('events.jsonl')
    .split('\n')
    .forEach((line, n) => {
      if (!line) return;
      const where = `events.jsonl line ${n + 1}`;
      let entry: { index: number; canonical: string; leaf_hash: string; inclusion: string[] };
      try {
        entry = JSON.parse(line);
      } catch {
        throw new BundleFailure(where, 'not JSON');
      }
      const leaf = sha256(Buffer.concat([Buffer.from([0]), Buffer.from(entry.canonical, 'utf8')]));
      if (leaf.toString('base64') !== entry.leaf_hash)
        throw new BundleFailure(where, `leaf ${entry.index}: its hash is not SHA-256(0x00 ‖ canonical)`);
      const path = (entry.inclusion ?? []).map((h) => Buffer.from(h, 'base64'));
      const reached = Number.isSafeInteger(entry.index)
        ? rootFromInclusion(entry.index, treeSize, leaf, path)
        : null;
      if (!reached?.equals(rootHash))
        throw new BundleFailure(
          where,
          `leaf ${entry.index}: its inclusion proof does not lead to the checkpoint's root`,
        );
      events++;
    });

  const tsr = members.get('checkpoint.tsr');
  // A TimeStampResp holds the imprint it was asked for, the SHA-256 of the bytes, as is.
  if (tsr && !tsr.includes(sha256(members.get('checkpoint.txt') as Buffer)))
    throw new BundleFailure(
      'checkpoint.tsr',
      'not a timestamp of checkpoint.txt (its message imprint differs)',
    );

  return {
    org: manifest.org,
    subject: manifest.subject,
    at: manifest.at,
    keyName: key.name,
    keyPinned: pinned !== undefined,
    members: manifest.members.length,
    events,
    checkpoint: { origin: origin as string, treeSize, rootHash: root as string },
    timestamped: tsr !== undefined,
  };
}

/** Reads a bundle (a zip file or the directory it was unzipped to) and verifies it. */
export function verifyBundle(path: string, pinned?: string): BundleReport {
  const members = statSync(path).isDirectory() ? readDirectory(path) : readZip(readFileSync(path));
  return verifyMembers(members, pinned);
}

/** The command line: prints what it checked, or FAILED and the first failure; the exit code (0, 1 failed, 2 usage). */
export function runVerifier(argv: string[]): number {
  const keyAt = argv.indexOf('--key');
  const pinned = keyAt >= 0 ? argv[keyAt + 1] : undefined;
  const paths = keyAt < 0 ? argv : argv.filter((_, i) => i !== keyAt && i !== keyAt + 1);
  if (paths.length !== 1 || (keyAt >= 0 && !pinned)) {
    console.error('usage: node verify.mjs <bundle.zip | directory> [--key <verifier key>]');
    return 2;
  }
  try {
    const report = verifyBundle(paths[0], pinned);
    console.log(
      `OK: ${report.members} files match the signed manifest; ${report.events} events are in ` +
        `${report.checkpoint.origin}'s tree of ${report.checkpoint.treeSize} (root ${report.checkpoint.rootHash}), ` +
        `signed by ${report.keyName}${report.keyPinned ? '' : ' (the key in key.txt: pass --key to pin it)'}`,
    );
    if (report.timestamped)
      console.log(
        'checkpoint.tsr is an RFC 3161 timestamp of checkpoint.txt: check its signature with ' +
          'openssl ts -verify -in checkpoint.tsr -data checkpoint.txt -CAfile <the TSA certificate>',
      );
    return 0;
  } catch (error) {
    console.error(`FAILED: ${(error as Error).message}`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = runVerifier(process.argv.slice(2));
