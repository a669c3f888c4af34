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
  let keyAt1 = '';
  let keyAt3 = '';
  let inArtifacts = false;
  let pod = { podName: 1, namespace: 1 };
  for (let i = 0; i < text.length; i++) {
    const byte = text[i];
    const depth = objects.length;
    if (byte === QUOTE) {
      const start = i + 1;
      let chars = 0;
      for (i = start; i < text.length && text[i] !== QUOTE; i++, chars++) {
        if (text[i] === BACKSLASH) i += text[i + 1] === U ? 5 : 1; // one escape, at least one character
      }
      const isKey = objects[depth - 1] === true && !afterColon;
      afterColon = false;
      if (isKey && depth === 1) keyAt1 = text.toString('latin1', start, i);
      else if (isKey && depth === 3 && inArtifacts) keyAt3 = text.toString('latin1', start, i);
      else if (!isKey && depth === 3 && inArtifacts && (keyAt3 === 'podName' || keyAt3 === 'namespace'))
        pod[keyAt3] = Math.max(1, chars);
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      objects.push(byte === OPEN_OBJECT);
      afterColon = false;
      if (depth === 1 && byte === OPEN_ARRAY && keyAt1 === 'artifacts') {
        inArtifacts = true;
        total = 0;
      }
      if (depth === 2 && inArtifacts && byte === OPEN_OBJECT) {
        pod = { podName: 1, namespace: 1 };
        keyAt3 = '';
      }
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      objects.pop();
      if (depth === 3 && inArtifacts && byte === CLOSE_OBJECT) {
        // Its names, and a timestamp of one digit at least.
        total += POD_ENTRY_OVERHEAD + pod.podName + pod.namespace + 1;
      }
      if (depth === 2) inArtifacts = false;
    } else if (byte === COLON) afterColon = true;
    else if (byte === COMMA) afterColon = false;
  }
  return total;
}
