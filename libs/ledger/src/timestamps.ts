import { createHash, randomBytes } from 'node:crypto';

/**
 * RFC 3161 time-stamp requests and responses, as much of them as the
 * sequencer needs: a request for a SHA-256 digest (DER, fixed shape), and the
 * granted response's token, kept whole for `openssl ts -verify`.
 */

/** DER of AlgorithmIdentifier { id-sha256, NULL }. */
const SHA256_ALGORITHM = Buffer.from('300d06096086480165030402010500', 'hex');

function der(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const length =
    n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, content]);
}

/** TimeStampReq { version 1, messageImprint, nonce, certReq TRUE } for the SHA-256 of `data`. */
export function timestampQuery(data: Buffer, nonce: Buffer = randomBytes(8)): Buffer {
  const digest = createHash('sha256').update(data).digest();
  const positive = nonce[0] & 0x80 ? Buffer.concat([Buffer.from([0]), nonce]) : nonce;
  return der(
    0x30,
    Buffer.concat([
      der(0x02, Buffer.from([1])),
      der(0x30, Buffer.concat([SHA256_ALGORITHM, der(0x04, digest)])),
      der(0x02, positive),
      der(0x01, Buffer.from([0xff])),
    ]),
  );
}

/** One DER element at `offset`: its tag and where its content starts and ends. */
function element(bytes: Buffer, offset: number): { tag: number; start: number; end: number } {
  const tag = bytes[offset];
  let length = bytes[offset + 1];
  let start = offset + 2;
  if (length & 0x80) {
    const octets = length & 0x7f;
    if (octets < 1 || octets > 4) throw new Error('a DER length of more than 4 octets');
    length = bytes.subarray(start, start + octets).reduce((n, b) => n * 256 + b, 0);
    start += octets;
  }
  if (start + length > bytes.length) throw new Error('a DER element longer than the response');
  return { tag, start, end: start + length };
}

/**
 * The status of a TimeStampResp: throws unless the TSA granted the request
 * (status 0, or 1 "with modifications") and sent its token.
 */
export function assertGranted(response: Buffer): void {
  const resp = element(response, 0);
  const statusInfo = element(response, resp.start);
  const status = element(response, statusInfo.start);
  if (resp.tag !== 0x30 || statusInfo.tag !== 0x30 || status.tag !== 0x02)
    throw new Error('not a TimeStampResp');
  const value = response[status.end - 1];
  if (value > 1) throw new Error(`the TSA refused the request (status ${value})`);
  if (statusInfo.end >= resp.end) throw new Error('the TSA granted the request but sent no token');
}

/** Asks the TSA at `url` to timestamp `data`; the DER TimeStampResp it granted. */
export async function requestTimestamp(url: string, data: Buffer, timeoutMs = 10_000): Promise<Buffer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/timestamp-query' },
    body: timestampQuery(data),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!res.ok) throw new Error(`the TSA answered ${res.status}`);
  const response = Buffer.from(await res.arrayBuffer());
  assertGranted(response);
  return response;
}
