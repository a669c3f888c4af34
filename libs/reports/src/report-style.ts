import { isoMicros, unixMicros } from '#des/kernel';
import { html, type SafeHtml } from './html';

/**
 * The look every report shares: tables as wide as the page whatever they
 * hold (long names, fingerprints and hashes wrap instead of running off it),
 * a row never split across pages, and status colours.
 */
export const REPORT_STYLE: SafeHtml = html`<style>
  body {
    font-family: 'DejaVu Sans', Arial, sans-serif;
    font-size: 9pt;
    color: #222;
  }
  h1 {
    font-size: 16pt;
    margin: 0 0 4px;
  }
  h2 {
    font-size: 12pt;
    margin: 18px 0 6px;
    border-bottom: 1px solid #ccc;
    break-after: avoid;
  }
  table {
    border-collapse: collapse;
    width: 100%;
    table-layout: fixed;
  }
  tr,
  tbody.entry {
    break-inside: avoid;
  }
  td,
  th {
    border: 1px solid #ddd;
    padding: 3px 5px;
    text-align: left;
    vertical-align: top;
    overflow-wrap: anywhere;
  }
  th {
    background: #f3f3f3;
  }
  thead {
    display: table-header-group;
  }
  code {
    font-size: 7.5pt;
    word-break: break-all;
  }
  .ok,
  .bad,
  .incomplete,
  .when {
    white-space: nowrap;
  }
  .ok {
    color: #0a7a2f;
    font-weight: bold;
  }
  .bad {
    color: #b00020;
    font-weight: bold;
  }
  .incomplete {
    color: #a66b00;
    font-weight: bold;
  }
  .meta td:first-child {
    width: 24%;
    font-weight: bold;
  }
  .small {
    font-size: 7.5pt;
    color: #444;
  }
</style>`;

export const statusMark = (compliant: boolean) =>
  html`<span class="${compliant ? 'ok' : 'bad'}">${compliant ? 'COMPLIANT' : 'NON-COMPLIANT'}</span>`;

/** A report table's columns: their headings (repeated on each page) and widths in percent of the page. */
export function tableHead(columns: [heading: string, widthPercent: number][]): SafeHtml {
  return html`<colgroup>
      ${columns.map(([, width]) => html`<col style="width: ${width}%" />`)}
    </colgroup>
    <thead>
      <tr>
        ${columns.map(([heading]) => html`<th>${heading}</th>`)}
      </tr>
    </thead>`;
}

/** A whole report: its title, the shared style, and its body. */
export function reportPage(title: string, body: SafeHtml): string {
  return html`<!doctype html>
    <html>
      <head>
        <meta charset="utf-8" />
        <title>${title}</title>
        ${REPORT_STYLE}
      </head>
      <body>
        ${body}
      </body>
    </html>`.value;
}

/** A report's opening table of labelled values; a row whose value is undefined is left out. */
export function metaTable(rows: [label: string, value: unknown][]): SafeHtml {
  return html`<table class="meta">
    ${rows
      .filter(([, value]) => value !== undefined)
      .map(
        ([label, value]) =>
          html`<tr>
            <td>${label}</td>
            <td>${value}</td>
          </tr>`,
      )}
  </table>`;
}

/** An instant in a report's tables, to the second (`2026-11-24 10:39:16 UTC`); `—` for none. */
export const when = (seconds: number | null | undefined) =>
  seconds === null || seconds === undefined
    ? '—'
    : new Date(seconds * 1000)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC');

/** The instant a report shows, exactly: ISO to the microsecond and UNIX seconds. */
export const exactInstant = (instant: number) => `${isoMicros(instant)} (UNIX ${unixMicros(instant)})`;

/**
 * The transparency log's signed checkpoint covering the organization's
 * history up to the instant shown, and how to check it; or, printed before
 * one was signed, which checkpoint will.
 */
export function checkpointCell(
  org: string,
  covering: {
    leaves: number;
    checkpoint: { tree_size: number; root_hash: string; recorded_at: number } | null;
  } | null,
): SafeHtml | undefined {
  if (!covering) return undefined;
  const { leaves, checkpoint } = covering;
  if (!checkpoint)
    return html`${String(leaves)} events by this instant, not yet under a signed checkpoint when printed<br />
      <span class="small"
        >Check: the first <code>GET /api/v2/ledger/${org}/checkpoint</code> of tree size ${String(leaves)} or
        more covers them; <code>…/proofs/inclusion?index=${String(Math.max(leaves - 1, 0))}</code> proves the
        last</span
      >`;
  return html`Tree size ${String(checkpoint.tree_size)}, root <code>${checkpoint.root_hash}</code>, signed
    ${when(checkpoint.recorded_at)} (${String(leaves)} events by this instant)<br />
    <span class="small"
      >Check:
      <code>GET /api/v2/ledger/${org}/checkpoint?tree_size=${String(checkpoint.tree_size)}</code> answers this
      checkpoint with its signed note, and
      <code>…/proofs/consistency?from=${String(checkpoint.tree_size)}</code> proves any later one extends
      it</span
    >`;
}
