/**
 * The least a K8S report's snapshot weighs, read from the report's JSON text
 * before it is parsed: a report that cannot be recorded is refused without
 * building its values, validating its pods or assessing what runs.
 *
 * The snapshot lists every pod of every artifact as
 * `{"pod":<podName>,"namespace":<namespace>,"created_at":<creationTimestamp>}`;
 * each pod of the report appears there at least once (once per image digest),
 * its names as JSON strings no shorter than their characters, its timestamp
 * at least one digit. Summed over the pods of `artifacts`, that is a lower
 * bound of the snapshot event's size: over the event store's limit, the
 * snapshot would be refused at its append anyway.
 */

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
  let total = 0;
  // Open containers: true for an object. Depth 1 the report, 2 `artifacts`, 3 a pod.
  const objects: boolean[] = [];
  let afterColon = false;
  let keyAt1 = false;
  let keyAt3: 'podName' | 'namespace' | undefined;
  let inArtifacts = false;
  let pod = { podName: 1, namespace: 1 };
  // The next backslash from where a string is measured (searched again only once passed: linear overall).
  let backslash = -1;
  const characters = (start: number, end: number): number => {
    if (backslash < start && backslash !== Infinity) {
      backslash = text.indexOf(BACKSLASH, start);
      if (backslash < 0) backslash = Infinity;
    }
    return backslash >= end ? end - start : escapedCharacters(text, start, end);
  };
  for (let i = 0; i < text.length; i++) {
    const byte = text[i];
    const depth = objects.length;
    if (byte === QUOTE) {
      const start = i + 1;
      i = closingQuote(text, start);
      if (i < 0) break;
      const isKey = objects[depth - 1] === true && !afterColon;
      afterColon = false;
      if (isKey && depth === 1) keyAt1 = named(text, start, i, ARTIFACTS);
      else if (isKey && depth === 3 && inArtifacts)
        keyAt3 = named(text, start, i, POD_NAME)
          ? 'podName'
          : named(text, start, i, NAMESPACE)
            ? 'namespace'
            : undefined;
      else if (!isKey && depth === 3 && inArtifacts && keyAt3)
        pod[keyAt3] = Math.max(1, characters(start, i));
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      objects.push(byte === OPEN_OBJECT);
      afterColon = false;
      if (depth === 1 && byte === OPEN_ARRAY && keyAt1) {
        inArtifacts = true;
        total = 0;
      }
      if (depth === 2 && inArtifacts && byte === OPEN_OBJECT) {
        pod = { podName: 1, namespace: 1 };
        keyAt3 = undefined;
      }
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      objects.pop();
      // Its names, and a timestamp of one digit at least.
      if (depth === 3 && inArtifacts && byte === CLOSE_OBJECT)
        total += POD_ENTRY_OVERHEAD + pod.podName + pod.namespace + 1;
      if (depth === 2) inArtifacts = false;
    } else if (byte === COLON) afterColon = true;
    else if (byte === COMMA) afterColon = false;
  }
  return total;
}

const ARTIFACTS = Buffer.from('artifacts');
const POD_NAME = Buffer.from('podName');
const NAMESPACE = Buffer.from('namespace');

const named = (text: Buffer, start: number, end: number, name: Buffer) =>
  end - start === name.length && text.compare(name, 0, name.length, start, end) === 0;

/** Where the string opened before `start` closes (a quote after an even run of backslashes), or -1. */
function closingQuote(text: Buffer, start: number): number {
  for (let at = text.indexOf(QUOTE, start); at >= 0; at = text.indexOf(QUOTE, at + 1)) {
    let backslashes = 0;
    while (at - backslashes - 1 >= start && text[at - backslashes - 1] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}

/** The characters the string text[start, end) decodes to, at least: one per byte, one per escape. */
function escapedCharacters(text: Buffer, start: number, end: number): number {
  let chars = 0;
  for (let i = start; i < end; i++, chars++) if (text[i] === BACKSLASH) i += text[i + 1] === U ? 5 : 1;
  return chars;
}
