import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ChromiumPdfRenderer } from '#des/reports';
import { loadConfig } from '#des/platform';
import { textOf } from './support/pdf';

describe('the report renderer (Chromium)', () => {
  const plain = new ChromiumPdfRenderer();
  const tagged = new ChromiumPdfRenderer({ tagged: loadConfig({ DES_PDF_TAGGED: 'true' }).pdfTagged });
  after(async () => Promise.all([plain.close(), tagged.close()]));

  it('writes a structure tree for screen readers only when DES_PDF_TAGGED=true', async () => {
    const html = '<h1>Report</h1><table><tr><th>a</th></tr><tr><td>1</td></tr></table>';
    assert.equal(loadConfig({}).pdfTagged, false);
    const [untagged, structured] = await Promise.all([plain.render(html), tagged.render(html)]);
    assert.equal(untagged.includes('/StructTreeRoot'), false);
    assert.equal(structured.includes('/StructTreeRoot'), true);
    assert.match(textOf(untagged), /Report/);
  });

  it('repeats the running header and numbers every page', async () => {
    const rows = Array.from({ length: 150 }, (_, i) => `<p>line ${i}</p>`).join('');
    const text = textOf(
      await plain.render(rows, { header: 'acme · report · as of now', footer: 'the footer' }),
    );
    const pages = Number(/Page 1 of (\d+)/.exec(text)![1]);
    assert.ok(pages >= 2, `${pages} pages`);
    assert.equal(text.split('acme · report · as of now').length - 1, pages);
    assert.match(text, new RegExp(`the footer\\s+Page ${pages} of ${pages}`));
  });
});
