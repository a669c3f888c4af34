import { isoMicros, unixMicros } from '#des/kernel';
import { html, REPORT_STYLE, SafeHtml, statusMark } from '#des/reports';
import { evidenceSummary } from './evidence-summary';
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

/** An attestation's row, and under it (as wide as the table, so hashes stay on one line) its evidence. */
function attestationRows(attestations: Record<string, AttestationView>, scope: string): SafeHtml[] {
  return Object.values(attestations).map((a) => {
    const evidence = evidenceSummary(a);
    return html`<tbody class="entry">
      <tr>
        <td>${scope}</td>
        <td>${a.name}</td>
        <td>${a.type}</td>
        <td>${statusMark(a.compliant)}</td>
        <td class="when">${when(a.reported_at)}</td>
      </tr>
      ${
        evidence.length
          ? html`<tr>
              <td colspan="5" class="small">${evidence.map((line) => html`<div>${line}</div>`)}</td>
            </tr>`
          : ''
      }
    </tbody>`;
  });
}

/** The running header and footer of every page: whose report, of what, as of when (exactly). */
export function trailReportFrame(view: TrailView, instant: number) {
  return {
    header: `${view.org} · trail ${view.flow}/${view.name} · as of ${isoMicros(instant)}`,
    footer: 'Delivery Evidence Service: trail audit report',
  };
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
        ${REPORT_STYLE}
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
            <td>${isoMicros(instant)} (UNIX ${unixMicros(instant)})</td>
          </tr>
          <tr>
            <td>Generated</td>
            <td>${when(generatedAt)}</td>
          </tr>
          ${
            ledger
              ? html`<tr>
                  <td>Ledger head</td>
                  <td>
                    <code>${ledger.hash || '—'}</code> (position ${String(ledger.position)})<br />
                    <span class="small"
                      >Check:
                      <code>GET /api/v2/ledger/${view.org}/head?at=${unixMicros(instant)}</code> answers this
                      hash and position</span
                    >
                  </td>
                </tr>`
              : ''
          }
        </table>
        <h2>Artifacts</h2>
        ${
          view.artifacts.length
            ? html`<table>
                <colgroup>
                  <col style="width: 26%" />
                  <col style="width: 20%" />
                  <col style="width: 26%" />
                  <col style="width: 28%" />
                </colgroup>
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Commit</th>
                    <th>Build</th>
                    <th>Reported</th>
                  </tr>
                </thead>
                ${view.artifacts.map(
                  (a) =>
                    html`<tbody class="entry">
                      <tr>
                        <td>${a.filename}</td>
                        <td><code>${a.git_commit ?? '—'}</code></td>
                        <td>${a.build_url ?? '—'}</td>
                        <td class="when">${when(a.reported_at)}</td>
                      </tr>
                      <tr>
                        <td colspan="4" class="small">Fingerprint <code>${a.fingerprint}</code></td>
                      </tr>
                    </tbody>`,
                )}
              </table>`
            : html`<p>No artifacts.</p>`
        }
        <h2>Attestations</h2>
        ${
          rows.length
            ? html`<table>
                <colgroup>
                  <col style="width: 20%" />
                  <col style="width: 18%" />
                  <col style="width: 14%" />
                  <col style="width: 20%" />
                  <col style="width: 28%" />
                </colgroup>
                <thead>
                  <tr>
                    <th>On</th>
                    <th>Name</th>
                    <th>Type</th>
                    <th>Status</th>
                    <th>Reported</th>
                  </tr>
                </thead>
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
          <colgroup>
            <col style="width: 28%" />
            <col style="width: 72%" />
          </colgroup>
          <thead>
            <tr>
              <th>When</th>
              <th>Event</th>
            </tr>
          </thead>
          ${timeline.entries.map(
            (e) =>
              html`<tr>
                <td class="when">${when(e.timestamp)}</td>
                <td>${e.summary}</td>
              </tr>`,
          )}
        </table>
      </body>
    </html>`.value;
}
