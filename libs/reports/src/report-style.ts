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
