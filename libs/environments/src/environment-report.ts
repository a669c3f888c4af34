import { isoMicros } from '#des/kernel';
import {
  exactInstant,
  html,
  checkpointCell,
  metaTable,
  reportPage,
  type SafeHtml,
  statusMark,
  tableHead,
  when,
} from '#des/reports';
import type { SnapshotArtifactView, SnapshotView } from './compliance-model';
import type { AuditRow } from './environments.queries';

/** What the environment report shows, gathered at one instant. */
export interface EnvironmentReport {
  org: string;
  environment: { name: string; type: string; description: string; policies: string[]; state: boolean };
  /** The instant shown, exactly; when the report was made. */
  instant: number;
  generatedAt: number;
  period: { from: number; to: number };
  /** The snapshot in force at the instant (null: none yet). */
  inForce: SnapshotView | null;
  /** The changes of the period (the latest `changes.length` of `changesTotal`), and where every one is. */
  changes: AuditRow[];
  changesTotal: number;
  changesRest: string;
  /** Every snapshot up to the instant, newest first. */
  snapshots: { index: number; timestamp: number; compliant: boolean; artifacts: number }[];
  /** The transparency log's signed checkpoint covering the instant: a printed report can be checked against the log. */
  checkpoint?: Parameters<typeof checkpointCell>[1];
}

/** Why an artifact is (not) compliant, in the compliance model's terms. */
function reasons(a: SnapshotArtifactView): string[] {
  if (a.policy_decision) {
    return a.policy_decision.reasons.length ? a.policy_decision.reasons : ['the attached policies pass it'];
  }
  if (!a.provenance) return ['no trail reported this artifact'];
  const trails = a.provenance.trails.map((t) => `${t.flow}/${t.trail}`).join(', ');
  return [
    a.compliant ? `its trails are compliant: ${trails}` : `a reporting trail is not compliant: ${trails}`,
  ];
}

function runningRows(a: SnapshotArtifactView): SafeHtml {
  const commit = a.provenance?.commit;
  return html`<tbody class="entry">
    <tr>
      <td>${a.artifact_name}</td>
      <td>${a.provenance ? `${a.provenance.flow}/${a.provenance.trail}` : '—'}</td>
      <td>
        ${commit ? html`<code>${commit.sha1}</code>` : '—'}${commit?.author ? html`<br />${commit.author}` : ''}
      </td>
      <td>${String(a.instances)} (since #${String(a.since_snapshot)})</td>
      <td>
        ${statusMark(a.compliant)}${a.compliant_when_made !== a.compliant ? html`<br /><span class="small">when made: ${a.compliant_when_made ? 'compliant' : 'non-compliant'}</span>` : ''}
      </td>
    </tr>
    <tr>
      <td colspan="5" class="small">
        Fingerprint <code>${a.fingerprint}</code>${reasons(a).map((r) => html`<div>${r}</div>`)}
      </td>
    </tr>
  </tbody>`;
}

/** The running header and footer of every page. */
export function environmentReportFrame(report: EnvironmentReport) {
  return {
    header: `${report.org} · environment ${report.environment.name} · as of ${isoMicros(report.instant)}`,
    footer: 'Delivery Evidence Service: environment audit report',
  };
}

// The rows' text is left as it was when they were rendered in place (prettier would re-indent it).
// prettier-ignore
const changeRow = (c: AuditRow) =>
  html`<tr>
                    <td class="when">${when(c.timestamp)}</td>
                    <td>#${String(c.snapshot_index)}</td>
                    <td>${c.event_type}</td>
                    <td>${statusMark(c.compliant)}</td>
                    <td>
                      ${c.description}${c.commit ? html`<br /><span class="small">commit ${c.commit}</span>` : ''}
                    </td>
                  </tr>`;

// prettier-ignore
const snapshotRow = (s: EnvironmentReport['snapshots'][number]) =>
  html`<tr>
                    <td>#${String(s.index)}</td>
                    <td class="when">${when(s.timestamp)}</td>
                    <td>${String(s.artifacts)}</td>
                    <td>${statusMark(s.compliant)}</td>
                  </tr>`;

/** The report's rows, rendered. */
export interface EnvironmentReportRows {
  running: SafeHtml[];
  changes: SafeHtml[];
  snapshots: SafeHtml[];
}

/**
 * The rows of the report rendered a slice at a time (thousands of them: the
 * artifacts running, the changes, the snapshots): between two rows, the loop
 * is given a turn once `slice` is due.
 */
export async function environmentReportRows(
  r: EnvironmentReport,
  slice: { readonly due: boolean; turn(): Promise<void> },
): Promise<EnvironmentReportRows> {
  const rendered = async <T>(items: T[], row: (item: T) => SafeHtml) => {
    const out: SafeHtml[] = [];
    for (const item of items) {
      if (slice.due) await slice.turn();
      out.push(row(item));
    }
    return out;
  };
  return {
    running: await rendered(r.inForce?.artifacts ?? [], runningRows),
    changes: await rendered(r.changes, changeRow),
    snapshots: await rendered(r.snapshots, snapshotRow),
  };
}

/**
 * The environment report: what ran at an instant and why it was (not)
 * compliant, the period's changes, the snapshots. Its rows are rendered here unless given (`environmentReportRows`).
 */
export function environmentReportHtml(
  r: EnvironmentReport,
  rows: EnvironmentReportRows = {
    running: (r.inForce?.artifacts ?? []).map(runningRows),
    changes: r.changes.map(changeRow),
    snapshots: r.snapshots.map(snapshotRow),
  },
): string {
  const running = r.inForce?.artifacts ?? [];
  return reportPage(
    `Environment audit: ${r.environment.name}`,
    html`<h1>Environment audit report</h1>
      ${metaTable([
        ['Organization', r.org],
        ['Environment', `${r.environment.name} (${r.environment.type}) ${r.environment.description}`],
        ['Compliance', statusMark(r.environment.state)],
        [
          'Policies in force',
          r.environment.policies.length ? r.environment.policies.join(', ') : 'none attached',
        ],
        [
          'Snapshot in force',
          r.inForce
            ? `#${r.inForce.index}, recorded ${when(r.inForce.timestamp)}, ${r.inForce.artifacts.length} artifacts`
            : 'none yet',
        ],
        ['As of', exactInstant(r.instant)],
        ['Changes from / to', `${isoMicros(r.period.from)} / ${isoMicros(r.period.to)}`],
        ['Generated', when(r.generatedAt)],
        ['Signed checkpoint', checkpointCell(r.org, r.checkpoint ?? null)],
      ])}
      <h2>What ran at ${isoMicros(r.instant)}</h2>
      ${
        running.length
          ? html`<table>
              ${tableHead([
                ['Artifact', 24],
                ['Flow / trail', 22],
                ['Commit', 20],
                ['Instances', 14],
                ['Compliance', 20],
              ])}
              ${rows.running}
            </table>`
          : html`<p>Nothing ran.</p>`
      }
      <h2>Changes</h2>
      ${
        r.changes.length < r.changesTotal
          ? html`<p>
              The latest ${r.changes.length.toLocaleString('en')} of ${r.changesTotal.toLocaleString('en')}
              changes; every one: <code>GET ${r.changesRest}</code>
            </p>`
          : ''
      }
      ${
        r.changes.length
          ? html`<table>
              ${tableHead([
                ['When', 24],
                ['Snapshot', 12],
                ['Change', 10],
                ['Compliance', 18],
                ['What', 36],
              ])}
              ${rows.changes}
            </table>`
          : html`<p>No change in the period.</p>`
      }
      <h2>Snapshots</h2>
      ${
        r.snapshots.length
          ? html`<table>
              ${tableHead([
                ['Snapshot', 20],
                ['Recorded', 30],
                ['Artifacts', 20],
                ['Compliance', 30],
              ])}
              ${rows.snapshots}
            </table>`
          : html`<p>No snapshot yet.</p>`
      } `,
  );
}
