import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ChromiumPdfRenderer, processTree, schedulingPolicy } from '#des/reports';
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

  it("draws on the cores the service leaves free: every process of the browser's, later renderers too, on the idle policy", async () => {
    await plain.render('<p>first</p>');
    // A page opened after the launch (its renderer forked then) inherits the policy.
    await Promise.all([plain.render('<p>a</p>'), plain.render('<p>b</p>'), plain.render('<p>c</p>')]);
    assert.equal(plain.idleScheduled, true);
    const tree = await processTree((await plain.pid())!);
    assert.ok(tree.length >= 3, `${tree.length} processes`);
    const policies = await Promise.all(tree.map(schedulingPolicy));
    assert.deepEqual(
      policies.filter((p) => p !== undefined && p !== 'SCHED_IDLE'),
      [],
      `policies: ${policies.join(', ')}`,
    );
  });
});
