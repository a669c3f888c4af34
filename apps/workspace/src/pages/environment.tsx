import { type FormEvent, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { answer, type Answer, both, clientFor, fileOf, type Schemas, useAnswer, useSession } from '../api';
import { localInput, useAsOf } from '../as-of';
import { EnvironmentState } from '../environment-state';
import { isoAt } from '../format';
import { snapshotDiff } from '../snapshot-diff';
import { Badge, Digest, DownloadButton, Instant, Loaded, PageLink, Section } from '../ui';

type Snapshot = Schemas['SnapshotDto'];
type Running = Schemas['SnapshotArtifactDto'];

const TIMELINE_PAGE = 20;

/** The snapshot in force at an instant (the latest recorded by then), or null when none was yet. */
async function snapshotAt(
  des: ReturnType<typeof clientFor>,
  org: string,
  env: string,
  at: string | undefined,
): Promise<Answer<Snapshot | null>> {
  const got = await answer(
    des.GET('/api/v2/environments/{org}/{env}/snapshots/{ref}', {
      params: { path: { org, env, ref: '-1' }, query: { at } },
    }),
  );
  return !got.ok && got.status === 404 && got.message === 'Snapshot not found'
    ? { ok: true, data: null }
    : got;
}

/**
 * An environment at the page's instant: what runs there (with provenance,
 * compliance and its reasons), the policies in force, the timeline of its
 * changes to move along, a diff against another instant, and its audit log
 * and report as files.
 */
export function Environment() {
  const { env = '' } = useParams();
  const { org } = useSession();
  const at = useAsOf();
  const shown = useAnswer(
    async (des) =>
      both(
        await answer(
          des.GET('/api/v2/environments/{org}/{env}', { params: { path: { org, env }, query: { at } } }),
        ),
        await snapshotAt(des, org, env, at),
      ),
    [env, at],
  );
  return (
    <>
      <h1>
        Environment <span className="name">{env}</span>
      </h1>
      <Loaded answer={shown}>
        {([environment, snapshot]) => (
          <>
            <dl className="facts">
              <dt>Type</dt>
              <dd>{environment.type}</dd>
              <dt>Compliant</dt>
              <dd>
                <EnvironmentState environment={environment} />
              </dd>
              <dt>Snapshot</dt>
              <dd>
                {snapshot ? (
                  <>
                    #{snapshot.index}, <Instant seconds={snapshot.timestamp} />
                  </>
                ) : (
                  <span className="muted">no report yet</span>
                )}
              </dd>
              <dt>Policies in force</dt>
              <dd>
                {environment.policies.length ? (
                  environment.policies.join(', ')
                ) : (
                  <span className="muted">none</span>
                )}
              </dd>
              {environment.type === 'logical' && (
                <>
                  <dt>Members</dt>
                  <dd>
                    {environment.included_environments.map((m, i) => (
                      <span key={m}>
                        {i > 0 && ', '}
                        <PageLink to={`environments/${encodeURIComponent(m)}`}>{m}</PageLink>
                      </span>
                    ))}
                  </dd>
                </>
              )}
            </dl>
            <Files org={org} env={env} at={at} />
            <Section id="running" title={snapshot ? `Running (${snapshot.artifacts.length})` : 'Running'}>
              {snapshot && snapshot.artifacts.length ? (
                <RunningTable artifacts={snapshot.artifacts} />
              ) : (
                <p className="muted">
                  Nothing {snapshot ? 'runs' : 'was reported'} {at ? 'at that instant' : 'yet'}.
                </p>
              )}
            </Section>
            {environment.type !== 'logical' && <Diff env={env} later={snapshot} />}
            {environment.type !== 'logical' && <Timeline env={env} />}
          </>
        )}
      </Loaded>
    </>
  );
}

function Files({ org, env, at }: { org: string; env: string; at: string | undefined }) {
  const session = useSession();
  const params = { path: { org, env }, query: { at } };
  return (
    <p className="files">
      <DownloadButton
        label="Audit log (CSV)"
        fetchFile={() =>
          fileOf(
            clientFor(session).GET('/api/v2/environments/{org}/{env}/auditlog', { params, parseAs: 'blob' }),
            `${env}-audit-log.csv`,
          )
        }
      />
      <DownloadButton
        label="Report (PDF)"
        fetchFile={() =>
          fileOf(
            clientFor(session).GET('/api/v2/environments/{org}/{env}/audit_pdf', { params, parseAs: 'blob' }),
            `${env}-report.pdf`,
          )
        }
      />
    </p>
  );
}

/** What runs: each artifact with its instances, where it came from, and whether it complies and why. */
export function RunningTable({ artifacts }: { artifacts: Running[] }) {
  return (
    <table className="running">
      <thead>
        <tr>
          <th scope="col">Artifact</th>
          <th scope="col">Instances</th>
          <th scope="col">Provenance</th>
          <th scope="col">Compliant</th>
          <th scope="col">Since</th>
        </tr>
      </thead>
      <tbody>
        {artifacts.map((a) => (
          <tr key={a.fingerprint} data-fingerprint={a.fingerprint}>
            <td>
              <div>{a.artifact_name}</div>
              <Digest value={a.fingerprint} />
            </td>
            <td>{a.instances}</td>
            <td>
              <Provenance artifact={a} />
            </td>
            <td>
              <Badge ok={a.compliant} yes="yes" no="no" />
              {a.compliant !== a.compliant_when_made && (
                <div className="muted">
                  {a.compliant_when_made ? 'compliant' : 'non-compliant'} when it started
                </div>
              )}
              {a.policy_decision && a.policy_decision.reasons.length > 0 && (
                <ul className="reasons">
                  {a.policy_decision.reasons.map((r, i) => (
                    <li key={i}>{r}</li>
                  ))}
                </ul>
              )}
            </td>
            <td>snapshot #{a.since_snapshot}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Provenance({ artifact }: { artifact: Running }) {
  const p = artifact.provenance;
  if (!p) return <span className="badge bad">no provenance</span>;
  return (
    <>
      <PageLink to={`flows/${encodeURIComponent(p.flow)}/trails/${encodeURIComponent(p.trail)}`}>
        {p.flow} / {p.trail}
      </PageLink>
      {p.commit && (
        <div className="muted">
          <Digest value={p.commit.sha1} length={7} /> {p.commit.message?.split('\n')[0]}
          {p.commit.author && ` — ${p.commit.author}`}
        </div>
      )}
    </>
  );
}

/** The page's query with another instant to compare with. */
function compareWith(params: URLSearchParams, iso: string): string {
  const next = new URLSearchParams(params);
  next.set('compare', iso);
  return next.toString();
}

/** Started, exited and changed between another instant (`?compare=`) and the page's. */
function Diff({ env, later }: { env: string; later: Snapshot | null }) {
  const { org } = useSession();
  const [params, setParams] = useSearchParams();
  const compare = params.get('compare') ?? undefined;
  const earlier = useAnswer(
    async (des) => (compare ? snapshotAt(des, org, env, compare) : { ok: true as const, data: null }),
    [env, compare],
  );
  const [input, setInput] = useState(compare ? localInput(compare) : '');
  const [shownFor, setShownFor] = useState(compare);
  if (shownFor !== compare) {
    setShownFor(compare);
    setInput(compare ? localInput(compare) : '');
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const next = new URLSearchParams(params);
    if (input) next.set('compare', new Date(input).toISOString());
    else next.delete('compare');
    setParams(next);
  };
  return (
    <Section id="diff" title="Diff">
      <form className="inline" onSubmit={submit}>
        <label htmlFor="compare-input">Compare with the environment as of</label>
        <input
          id="compare-input"
          type="datetime-local"
          step={1}
          value={input}
          onChange={(e) => setInput(e.target.value)}
        />
        <button type="submit">Show the diff</button>
      </form>
      {compare && (
        <Loaded answer={earlier}>
          {(before) => {
            const diff = snapshotDiff(before?.artifacts ?? [], later?.artifacts ?? []);
            const none = !diff.started.length && !diff.exited.length && !diff.changed.length;
            return (
              <div className="diff" aria-live="polite">
                <p>
                  From {before ? `snapshot #${before.index}` : 'no snapshot'} (as of{' '}
                  <Instant seconds={Date.parse(compare) / 1000} />) to{' '}
                  {later ? `snapshot #${later.index}` : 'no snapshot'}.
                </p>
                {none && <p className="muted">Nothing started, exited or changed.</p>}
                <DiffList kind="started" rows={diff.started.map((a) => [a, ''])} />
                <DiffList kind="exited" rows={diff.exited.map((a) => [a, ''])} />
                <DiffList
                  kind="changed"
                  rows={diff.changed.map(({ before: b, after: a }) => [
                    a,
                    b.compliant !== a.compliant
                      ? `compliant: ${b.compliant ? 'yes' : 'no'} → ${a.compliant ? 'yes' : 'no'}`
                      : 'provenance changed',
                  ])}
                />
              </div>
            );
          }}
        </Loaded>
      )}
    </Section>
  );
}

function DiffList({ kind, rows }: { kind: 'started' | 'exited' | 'changed'; rows: [Running, string][] }) {
  if (!rows.length) return null;
  return (
    <>
      <h3>
        {kind[0].toUpperCase() + kind.slice(1)} ({rows.length})
      </h3>
      <ul className="list">
        {rows.map(([a, note]) => (
          <li key={a.fingerprint} data-diff={kind} data-fingerprint={a.fingerprint}>
            {a.artifact_name} <Digest value={a.fingerprint} /> <span className="muted">{note}</span>
          </li>
        ))}
      </ul>
    </>
  );
}

/** The environment's audit log, newest first, a page at a time: each entry moves the page to its instant. */
function Timeline({ env }: { env: string }) {
  const { org } = useSession();
  const [params] = useSearchParams();
  const at = useAsOf();
  const [page, setPage] = useState(1);
  const rows = useAnswer(
    async (des) =>
      answer(
        des.GET('/api/v2/environments/{org}/{env}/events', {
          params: { path: { org, env }, query: { at, page, per_page: TIMELINE_PAGE } },
        }),
      ),
    [env, at, page],
  );
  return (
    <Section id="timeline" title="Timeline">
      <Loaded answer={rows}>
        {(events) =>
          events.length === 0 && page === 1 ? (
            <p className="muted">No change recorded {at ? 'by that instant' : 'yet'}.</p>
          ) : (
            <>
              <ol className="timeline">
                {events.map((e, i) => (
                  <li
                    key={`${e.snapshot_index}-${e.fingerprint}-${e.event_type}-${i}`}
                    data-snapshot={e.snapshot_index}
                  >
                    <Instant seconds={e.timestamp} />{' '}
                    <span className={`event ${e.event_type}`}>{e.event_type}</span> {e.artifact_name}{' '}
                    <span className="muted">(snapshot #{e.snapshot_index})</span>{' '}
                    <PageLink
                      to={`environments/${encodeURIComponent(env)}?at=${encodeURIComponent(isoAt(e.timestamp))}`}
                      keep={false}
                    >
                      View at this instant
                    </PageLink>{' '}
                    <Link
                      to={`?${compareWith(params, isoAt(e.timestamp))}`}
                      aria-label={`Diff from here (snapshot #${e.snapshot_index}) to the page's instant`}
                    >
                      Diff from here
                    </Link>
                  </li>
                ))}
              </ol>
              <nav className="pager" aria-label="Timeline pages">
                <button
                  type="button"
                  className="secondary"
                  disabled={page <= 1}
                  onClick={() => setPage(page - 1)}
                >
                  Newer
                </button>
                <span>Page {page}</span>
                <button
                  type="button"
                  className="secondary"
                  disabled={events.length < TIMELINE_PAGE}
                  onClick={() => setPage(page + 1)}
                >
                  Older
                </button>
              </nav>
            </>
          )
        }
      </Loaded>
    </Section>
  );
}
