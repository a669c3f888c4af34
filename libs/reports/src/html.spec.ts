import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeHtml, html } from './html';

describe('html', () => {
  it('escapes every interpolation unless it is already safe HTML', () => {
    const evil = `<script>alert("x")</script>&'`;
    assert.equal(escapeHtml(evil), '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;');
    const row = html`<td>${evil}</td>`;
    // prettier-ignore
    const nested = html`<tr>${row}${[row, evil]}</tr>`;
    assert.equal(nested.value, `<tr>${row.value}${row.value}${escapeHtml(evil)}</tr>`);
    assert.equal(html`<p>${null}${undefined}${0}</p>`.value, '<p>0</p>');
  });
});
