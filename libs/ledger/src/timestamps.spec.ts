import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { assertGranted, timestampQuery } from './timestamps';

const hex = (s: string) => Buffer.from(s.replace(/\s/g, ''), 'hex');

describe('RFC 3161 requests and responses', () => {
  it('asks for a SHA-256 imprint of the data, with a nonce and the certificate, in DER', () => {
    const data = Buffer.from('acme checkpoint\n');
    const digest = createHash('sha256').update(data).digest();
    const query = timestampQuery(data, hex('0102030405060708'));
    assert.deepEqual(
      query,
      Buffer.concat([
        hex('30 43 02 01 01 30 31 30 0d 06 09 60 86 48 01 65 03 04 02 01 05 00 04 20'),
        digest,
        hex('02 08 01 02 03 04 05 06 07 08 01 01 ff'),
      ]),
    );
  });

  it('keeps a nonce with its high bit set positive', () => {
    const query = timestampQuery(Buffer.from('x'), hex('8000000000000001'));
    assert.deepEqual(query.subarray(-14), hex('02 09 00 80 00 00 00 00 00 00 01 01 01 ff'));
  });

  it('takes a granted response with a token, and refuses a rejection or a grant without one', () => {
    assertGranted(hex('30 07 30 03 02 01 00 30 00'));
    assertGranted(hex('30 07 30 03 02 01 01 30 00'));
    assert.throws(() => assertGranted(hex('30 07 30 03 02 01 02 30 00')), /refused the request \(status 2\)/);
    assert.throws(() => assertGranted(hex('30 05 30 03 02 01 00')), /sent no token/);
    assert.throws(() => assertGranted(hex('04 05 30 03 02 01 00')), /not a TimeStampResp/);
  });
});
