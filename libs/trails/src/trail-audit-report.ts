import { isoMicros } from '#des/kernel';
import {
  exactInstant,
  html,
  checkpointCell,
  metaTable,
  reportPage,
  SafeHtml,
  statusMark,
  tableHead,
  when,
} from '#des/reports';
import { evidenceSummary } from './evidence-summary';
import type { Compliance, TrailView, AttestationView } from './trail.view';
import type { TimelineEntry } from './trail-timeline';

/** The timeline the report prints: its latest entries, how many there are in all, and where the rest are. */
export interface ReportTimeline {
  entries: TimelineEntry[];
  total: number;
  rest: string;
}

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
  timeline: ReportTimeline,
  /** The transparency log's signed checkpoint covering the instant: a printed report can be checked against the log. */
  checkpoint: Parameters<typeof checkpointCell>[1] = null,
): string {
  const commit = view.git_commit_info;
  const rows = [
    ...attestationRows(view.attestations, 'trail'),
    ...view.artifacts.flatMap((a) => attestationRows(a.attestations, a.filename)),
  ];
  const compliant = compliance.status === 'COMPLIANT';
  const complianceCell = html`<span
      class="${compliant ? 'ok' : compliance.status === 'INCOMPLETE' ? 'incomplete' : 'bad'}"
      >${compliance.status}</span
    >
    ${compliance.missing.length ? html`<br />Missing: ${compliance.missing.join(', ')}` : ''}
    ${compliance.failing.length ? html`<br />Failing: ${compliance.failing.join(', ')}` : ''}`;
  return reportPage(
    `Trail audit: ${view.flow}/${view.name}`,
    html`<h1>Trail audit report</h1>
      ${metaTable([
        ['Organization', view.org],
        ['Flow', view.flow],
        ['Trail', view.name],
        ['Description', view.description],
        ['Commit', html`<code>${commit?.sha1 ?? '—'}</code> ${commit?.message ?? ''}`],
        ['Author / branch', `${commit?.author ?? '—'} / ${commit?.branch ?? '—'}`],
        ['Repository', `${view.repo_info?.name ?? '—'} ${view.repo_info?.url ?? ''}`],
        ['Compliance', complianceCell],
        ['As of', exactInstant(instant)],
        ['Generated', when(generatedAt)],
        ['Signed checkpoint', checkpointCell(view.org, checkpoint)],
      ])}
      <h2>Artifacts</h2>
      ${
        view.artifacts.length
          ? html`<table>
              ${tableHead([
                ['Name', 26],
                ['Commit', 20],
                ['Build', 26],
                ['Reported', 28],
              ])}
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
              ${tableHead([
                ['On', 20],
                ['Name', 18],
                ['Type', 14],
                ['Status', 20],
                ['Reported', 28],
              ])}
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
        ${tableHead([
          ['When', 28],
          ['Event', 72],
        ])}
        ${timeline.entries.map(
          (e) =>
            html`<tr>
              <td class="when">${when(e.timestamp)}</td>
              <td>${e.summary}</td>
            </tr>`,
        )}
      </table> `,
  );
}
