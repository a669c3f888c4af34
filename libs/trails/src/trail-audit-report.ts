import { html, SafeHtml } from '#des/reports';
import type { Compliance, TrailView, AttestationView } from './trail.view';
import type { TimelineEntry } from './trail-timeline';

/** The timeline the report prints: its latest entries, how many there are in all, and where the rest are. */
export interface ReportTimeline {
  entries: TimelineEntry[];
  total: number;
  rest: string;
}

const when = (seconds: number | null | undefined) =>
  seconds === null || seconds === undefined
    ? '—'
    : new Date(seconds * 1000)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC');

const status = (compliant: boolean) =>
  html`<span class="${compliant ? 'ok' : 'bad'}">${compliant ? 'COMPLIANT' : 'NON-COMPLIANT'}</span>`;

function attestationRows(attestations: Record<string, AttestationView>, scope: string): SafeHtml[] {
  return Object.values(attestations).map(
    (a) =>
      html`<tr>
        <td>${scope}</td>
        <td>${a.name}</td>
        <td>${a.type}</td>
        <td>${status(a.compliant)}</td>
        <td>${when(a.reported_at)}</td>
      </tr>`,
  );
}

/** The trail audit report: org, flow, trail, commit, compliance at the instant, artifacts, attestations, timeline. */
export function trailAuditHtml(
  view: TrailView,
  compliance: Compliance,
  instant: number,
  generatedAt: number,
  /** The organization's hash chain head at the instant: a printed report can be checked against the log. */
  ledger: { position: number; hash: string } | undefined,
  timeline: ReportTimeline,
): string {
  const commit = view.git_commit_info;
  const rows = [
    ...attestationRows(view.attestations, 'trail'),
    ...view.artifacts.flatMap((a) => attestationRows(a.attestations, a.filename)),
  ];
  return html`<!doctype html>
    <html>
      <head>
        <meta charset="utf-8" />
        <title>Trail audit: ${view.flow}/${view.name}</title>
        <style>
          body {
            font-family: 'DejaVu Sans', Arial, sans-serif;
            font-size: 10pt;
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
          }
          table {
            border-collapse: collapse;
            width: 100%;
          }
          td,
          th {
            border: 1px solid #ddd;
            padding: 4px 6px;
            text-align: left;
            vertical-align: top;
          }
          th {
            background: #f3f3f3;
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
            width: 28%;
            font-weight: bold;
          }
          code {
            font-size: 9pt;
          }
        </style>
      </head>
      <body>
        <h1>Trail audit report</h1>
        <table class="meta">
          <tr>
            <td>Organization</td>
            <td>${view.org}</td>
          </tr>
          <tr>
            <td>Flow</td>
            <td>${view.flow}</td>
          </tr>
          <tr>
            <td>Trail</td>
            <td>${view.name}</td>
          </tr>
          <tr>
            <td>Description</td>
            <td>${view.description}</td>
          </tr>
          <tr>
            <td>Commit</td>
            <td><code>${commit?.sha1 ?? '—'}</code> ${commit?.message ?? ''}</td>
          </tr>
          <tr>
            <td>Author / branch</td>
            <td>${commit?.author ?? '—'} / ${commit?.branch ?? '—'}</td>
          </tr>
          <tr>
            <td>Repository</td>
            <td>${view.repo_info?.name ?? '—'} ${view.repo_info?.url ?? ''}</td>
          </tr>
          <tr>
            <td>Compliance</td>
            <td>
              <span
                class="${compliance.status === 'COMPLIANT' ? 'ok' : compliance.status === 'INCOMPLETE' ? 'incomplete' : 'bad'}"
                >${compliance.status}</span
              >
              ${compliance.missing.length ? html`<br />Missing: ${compliance.missing.join(', ')}` : ''}
              ${compliance.failing.length ? html`<br />Failing: ${compliance.failing.join(', ')}` : ''}
            </td>
          </tr>
          <tr>
            <td>As of</td>
            <td>${when(instant)}</td>
          </tr>
          <tr>
            <td>Generated</td>
            <td>${when(generatedAt)}</td>
          </tr>
          ${
            ledger
              ? html`<tr>
                  <td>Ledger head</td>
                  <td><code>${ledger.hash || '—'}</code> (position ${String(ledger.position)})</td>
                </tr>`
              : ''
          }
        </table>
        <h2>Artifacts</h2>
        ${
          view.artifacts.length
            ? html`<table>
                <tr>
                  <th>Name</th>
                  <th>Fingerprint</th>
                  <th>Commit</th>
                  <th>Build</th>
                  <th>Reported</th>
                </tr>
                ${view.artifacts.map(
                  (a) =>
                    html`<tr>
                      <td>${a.filename}</td>
                      <td><code>${a.fingerprint}</code></td>
                      <td><code>${a.git_commit ?? '—'}</code></td>
                      <td>${a.build_url ?? '—'}</td>
                      <td>${when(a.reported_at)}</td>
                    </tr>`,
                )}
              </table>`
            : html`<p>No artifacts.</p>`
        }
        <h2>Attestations</h2>
        ${
          rows.length
            ? html`<table>
                <tr>
                  <th>On</th>
                  <th>Name</th>
                  <th>Type</th>
                  <th>Status</th>
                  <th>Reported</th>
                </tr>
                ${rows}
              </table>`
            : html`<p>No attestations.</p>`
        }
        <h2>Timeline</h2>
        ${
          timeline.entries.length < timeline.total
            ? html`<p>
                The latest ${timeline.entries.length.toLocaleString('en')} of
                ${timeline.total.toLocaleString('en')} entries; every entry: <code>GET ${timeline.rest}</code>
              </p>`
            : ''
        }
        <table>
          <tr>
            <th>When</th>
            <th>Event</th>
          </tr>
          ${timeline.entries.map(
            (e) =>
              html`<tr>
                <td>${when(e.timestamp)}</td>
                <td>${e.summary}</td>
              </tr>`,
          )}
        </table>
      </body>
    </html>`.value;
}
