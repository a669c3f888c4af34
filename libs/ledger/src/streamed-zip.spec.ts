import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { unzipSync } from 'fflate';
import { StreamedZip } from './streamed-zip';

const collect = async (zip: StreamedZip) => {
  const chunks: Uint8Array[] = [];
  for await (const chunk of zip.bytes()) chunks.push(chunk);
  return Buffer.concat(chunks);
};
const mtime = new Date(Date.UTC(2026, 0, 2));

describe('StreamedZip', () => {
  it('writes held (deflated or stored) and streamed members that unzip as they were, at the size it announced', async () => {
    const text = Buffer.from('{"a":1}\n'.repeat(50_000));
    const file = Buffer.alloc(700_000, 'attachment;');
    const zip = await StreamedZip.of(
      [
        { path: 'records/a.json', bytes: text, deflate: true },
        { path: 'empty.txt', bytes: Buffer.alloc(0), deflate: true },
        { path: 'reports/r.pdf', bytes: Buffer.from('%PDF-1.7'), deflate: false },
        {
          path: 'attachments/f.bin',
          size: file.length,
          open: async () => Readable.from([file.subarray(0, 100_000), file.subarray(100_000)]),
        },
      ],
      mtime,
    );
    const bytes = await collect(zip);
    assert.equal(bytes.length, zip.size);
    assert.ok(bytes.length < text.length + file.length, 'the text is deflated');
    const members = unzipSync(bytes);
    assert.deepEqual(Object.keys(members), [
      'records/a.json',
      'empty.txt',
      'reports/r.pdf',
      'attachments/f.bin',
    ]);
    assert.ok(Buffer.from(members['records/a.json']).equals(text));
    assert.equal(members['empty.txt'].length, 0);
    assert.ok(Buffer.from(members['attachments/f.bin']).equals(file));
  });

  it('fails, rather than write a zip other than announced, when a streamed member is not the size listed', async () => {
    const zip = await StreamedZip.of(
      [{ path: 'f.bin', size: 10, open: async () => Readable.from([Buffer.alloc(9)]) }],
      mtime,
    );
    await assert.rejects(collect(zip), /f\.bin: 9 bytes read where 10 were listed/);
  });
});
