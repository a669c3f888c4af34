/**
 * The least a K8S report's snapshot weighs, and how many image digests the
 * report names (per pod and in all), read from the report's JSON text before
 * it is parsed: a report that cannot be recorded is refused without building
 * its values, validating its pods or assessing what runs.
 *
 * The snapshot lists every pod of every artifact as
 * `{"pod":<podName>,"namespace":<namespace>,"created_at":<creationTimestamp>}`;
 * each pod of the report appears there once per image digest it names, its
 * names as JSON strings no shorter than their characters, its timestamp at
 * least one digit. Summed over the pods of `artifacts`, that is a lower
 * bound of the snapshot event's size: over the event store's limit, the
 * snapshot would be refused at its append anyway.
 */

import type { K8sPod } from './k8s-report';

/** `{"pod":"","namespace":"","created_at":}`: a pod's entry but its names and timestamp. */
export const POD_ENTRY_OVERHEAD = '{"pod":"","namespace":"","created_at":}'.length;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const U = 0x75;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/**
 * The lower bound of the snapshot's bytes for the report in `text` (its
 * pods' entries). Read as JSON.parse would read it (a repeated key: the
 * last); text that is not a report counts what pods it has, the validation
 * that follows refuses it.
 */
export function snapshotBytesAtLeast(text: Buffer): number {
  const scan = new SnapshotSizeScan();
  scan.write(text);
  return scan.total;
}

/**
 * The same lower bound from a report's pods once parsed: every report type's
 * running units are pods by then (an ECS task's ARN its name, its cluster its
 * namespace), so a report of any type whose snapshot cannot be appended is
 * refused before it is assessed or decided. A name's UTF-16 length is no
 * more than its UTF-8 bytes.
 */
export function snapshotBytesOfPods(pods: readonly K8sPod[]): number {
  let total = 0;
  for (const pod of pods)
    total +=
      Math.max(1, Object.keys(pod.digests).length) *
      (POD_ENTRY_OVERHEAD + pod.podName.length + pod.namespace.length + 1);
  return total;
}

const ARTIFACTS = Buffer.from('artifacts');
const POD_NAME = Buffer.from('podName');
const NAMESPACE = Buffer.from('namespace');
const DIGESTS = Buffer.from('digests');
const LONGEST_NAME = 9;

/**
 * `snapshotBytesAtLeast` as the text arrives, chunk by chunk (split
 * anywhere): each chunk costs a short walk, never the whole body at once.
 */
export class SnapshotSizeScan {
  /** The lower bound so far. */
  total = 0;
  /** Separators between `artifacts` items so far (the items are one more, when there are any). */
  separators = 0;
  /** Image digests the pods name so far, in all; the most one pod names, and which pod (its index). */
  digests = 0;
  mostDigestsInPod = 0;
  podWithMostDigests = 0;
  // Open containers: true for an object. Depth 1 the report, 2 `artifacts`, 3 a pod.
  private readonly objects: boolean[] = [];
  private afterColon = false;
  private keyAt1 = false;
  private keyAt3: 'podName' | 'namespace' | 'digests' | undefined;
  private inArtifacts = false;
  private inDigests = false;
  private pod = { podName: 1, namespace: 1, digests: 0 };
  // The string being read: its bytes so far, its first bytes, the characters they decode to at least.
  private inString = false;
  private escaped = false;
  private skip = 0;
  private bytes = 0;
  private chars = 0;
  private readonly head = Buffer.alloc(LONGEST_NAME);

  /** How deep the text nests (as `textNestsDeeperThan` counts it), at its deepest so far. */
  deepest = 0;
  private depth = 0;
  // Where the next backslash of the chunk is (searched again only once passed: linear overall).
  private backslash = -1;

  write(chunk: Buffer): void {
    this.backslash = -1;
    for (let i = 0; i < chunk.length; i++) {
      if (this.inString) {
        i = this.readString(chunk, i);
        continue;
      }
      const byte = chunk[i];
      const depth = this.objects.length;
      if (byte === QUOTE) {
        this.inString = true;
        this.bytes = 0;
        this.chars = 0;
      } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
        this.objects.push(byte === OPEN_OBJECT);
        this.deepest = Math.max(this.deepest, ++this.depth);
        this.afterColon = false;
        if (depth === 1 && byte === OPEN_ARRAY && this.keyAt1) {
          this.inArtifacts = true;
          this.total = 0;
          this.separators = 0;
          this.digests = 0;
        }
        if (depth === 2 && this.inArtifacts && byte === OPEN_OBJECT) {
          this.pod = { podName: 1, namespace: 1, digests: 0 };
          this.keyAt3 = undefined;
        }
        if (depth === 3 && this.inArtifacts && byte === OPEN_OBJECT && this.keyAt3 === 'digests') {
          // A repeated `digests` key: JSON.parse keeps the last.
          this.digests -= this.pod.digests;
          this.pod.digests = 0;
          this.inDigests = true;
        }
      } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
        this.objects.pop();
        this.depth--;
        // Its names, and a timestamp of one digit at least, once per digest (once at least).
        if (depth === 3 && this.inArtifacts && byte === CLOSE_OBJECT)
          this.total +=
            Math.max(1, this.pod.digests) * (POD_ENTRY_OVERHEAD + this.pod.podName + this.pod.namespace + 1);
        if (depth === 4) this.inDigests = false;
        if (depth === 2) this.inArtifacts = false;
      } else if (byte === COLON) this.afterColon = true;
      else if (byte === COMMA) {
        this.afterColon = false;
        if (depth === 2 && this.inArtifacts) this.separators++;
      }
    }
  }

  /** Reads string bytes from `i`: to the closing quote (returned) or the chunk's end. */
  private readString(chunk: Buffer, i: number): number {
    // Plain bytes up to the next quote or backslash at native speed.
    if (!this.escaped && this.skip === 0) {
      if (this.backslash !== Infinity && this.backslash < i) {
        this.backslash = chunk.indexOf(BACKSLASH, i);
        if (this.backslash < 0) this.backslash = Infinity;
      }
      const quote = chunk.indexOf(QUOTE, i);
      const plainEnd = Math.min(quote < 0 ? chunk.length : quote, this.backslash);
      if (plainEnd > i) {
        if (this.bytes < LONGEST_NAME)
          for (let k = i; k < plainEnd && this.bytes + k - i < LONGEST_NAME; k++)
            this.head[this.bytes + k - i] = chunk[k];
        this.bytes += plainEnd - i;
        this.chars += plainEnd - i;
        i = plainEnd;
        if (i === chunk.length) return i - 1;
      }
    }
    const byte = chunk[i];
    if (byte === QUOTE && !this.escaped && this.skip === 0) {
      this.inString = false;
      this.endOfString();
      return i;
    }
    if (this.bytes < LONGEST_NAME) this.head[this.bytes] = byte;
    this.bytes++;
    if (this.skip > 0) this.skip--;
    else if (this.escaped) {
      this.escaped = false;
      if (byte === U) this.skip = 4; // a \u escape: four hex digits, one character
    } else {
      this.chars++;
      if (byte === BACKSLASH) this.escaped = true;
    }
    return i;
  }

  private endOfString(): void {
    const depth = this.objects.length;
    const isKey = this.objects[depth - 1] === true && !this.afterColon;
    this.afterColon = false;
    if (isKey && depth === 1) this.keyAt1 = this.is(ARTIFACTS);
    else if (isKey && depth === 3 && this.inArtifacts)
      this.keyAt3 = this.is(POD_NAME)
        ? 'podName'
        : this.is(NAMESPACE)
          ? 'namespace'
          : this.is(DIGESTS)
            ? 'digests'
            : undefined;
    else if (!isKey && depth === 3 && this.inArtifacts && this.keyAt3 && this.keyAt3 !== 'digests')
      this.pod[this.keyAt3] = Math.max(1, this.chars);
    else if (isKey && depth === 4 && this.inDigests) this.countDigest();
  }

  private countDigest(): void {
    this.digests++;
    if (++this.pod.digests > this.mostDigestsInPod) {
      this.mostDigestsInPod = this.pod.digests;
      this.podWithMostDigests = this.separators;
    }
  }

  private is(name: Buffer): boolean {
    if (this.bytes !== name.length) return false;
    for (let k = 0; k < name.length; k++) if (this.head[k] !== name[k]) return false;
    return true;
  }
}
