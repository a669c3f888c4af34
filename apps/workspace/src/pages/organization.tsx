import { answer, both, json, type Schemas, useAnswer, useSession } from '../api';
import { isoAt } from '../format';
import { useAsOf } from '../as-of';
import { EnvironmentState } from '../environment-state';
import { Badge, Digest, Instant, Loaded, PageLink, Section } from '../ui';

const LATEST = 10;

/** `GET /flows/{org}` asked without `page` or `per_page` answers the list itself, not a page. */
const unpaged = <T,>(list: T[] | { data: T[] }): T[] => (Array.isArray(list) ? list : list.data);

/** The organization as of the page's instant: its environments with their state, its flows, its latest changes. */
export function Organization() {
  const { org } = useSession();
  const at = useAsOf();
  const listed = useAnswer(
    async (des) => {
      const params = { path: { org }, query: { at } };
      return both(
        await answer(des.GET('/api/v2/environments/{org}', { params })),
        await answer(des.GET('/api/v2/flows/{org}', { params })),
      );
    },
    [at],
  );
  const latest = useAnswer(
    async (des) => {
      // The population is in the order changes started: its last page is the latest.
      const first = json(
        await answer(
          des.GET('/api/v2/audit/{org}/changes', { params: { path: { org }, query: { at, per_page: 1 } } }),
        ),
      );
      if (!first.ok || first.data.total_count <= 1) return first;
      const page = Math.ceil(first.data.total_count / LATEST);
      return json(
        await answer(
          des.GET('/api/v2/audit/{org}/changes', {
            params: { path: { org }, query: { at: isoAt(first.data.at), page, per_page: LATEST } },
          }),
        ),
      );
    },
    [at],
  );
  return (
    <>
      <h1>{org}</h1>
      <Loaded answer={listed}>
        {([listedEnvironments, listedFlows]) => {
          const flows = unpaged(listedFlows);
          // Unpaged (no page asked for), the list is the whole array.
          const environments = Array.isArray(listedEnvironments)
            ? listedEnvironments
            : listedEnvironments.environments;
          return (
            <>
              <Section id="environments" title="Environments">
                {environments.length === 0 ? (
                  <p className="muted">No environment {at ? 'at that instant' : 'yet'}.</p>
                ) : (
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Name</th>
                        <th scope="col">Type</th>
                        <th scope="col">Compliant</th>
                        <th scope="col">Last report</th>
                      </tr>
                    </thead>
                    <tbody>
                      {environments.map((e) => (
                        <tr key={e.name} data-environment={e.name}>
                          <td>
                            <PageLink to={`environments/${encodeURIComponent(e.name)}`}>{e.name}</PageLink>
                          </td>
                          <td>{e.type}</td>
                          <td>
                            <EnvironmentState environment={e} />
                          </td>
                          <td>
                            <Instant seconds={e.last_reported_at} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
              </Section>
              <Section id="flows" title="Flows">
                {flows.length === 0 ? (
                  <p className="muted">No flow {at ? 'at that instant' : 'yet'}.</p>
                ) : (
                  <ul className="list">
                    {flows.map((f) => (
                      <li key={f.name} data-flow={f.name}>
                        <PageLink to={`flows/${encodeURIComponent(f.name)}`}>{f.name}</PageLink>{' '}
                        {f.description && <span className="muted">— {f.description}</span>}
                      </li>
                    ))}
                  </ul>
                )}
              </Section>
            </>
          );
        }}
      </Loaded>
      <Section
        id="latest"
        title="Latest changes"
        actions={<PageLink to="changes">The whole population</PageLink>}
      >
        <Loaded answer={latest}>
          {(page) =>
            page.changes.length === 0 ? (
              <p className="muted">No change in the last 30 days{at ? ' before that instant' : ''}.</p>
            ) : (
              <ChangeRows changes={[...page.changes].reverse()} />
            )
          }
        </Loaded>
      </Section>
    </>
  );
}

/** Changes as rows: where and when each started, what, from which trail, and its compliance. */
export function ChangeRows({
  changes,
  evidence = false,
}: {
  changes: Schemas['ChangeView'][];
  evidence?: boolean;
}) {
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Started</th>
          <th scope="col">Environment</th>
          <th scope="col">Artifact</th>
          <th scope="col">Trail</th>
          <th scope="col">Compliant</th>
          <th scope="col">Gaps</th>
          {evidence && <th scope="col">Evidence</th>}
        </tr>
      </thead>
      <tbody>
        {changes.map((c) => (
          <tr key={c.id} data-change={c.id}>
            <td>
              <Instant seconds={c.started_at} />
            </td>
            <td>
              <PageLink to={`environments/${encodeURIComponent(c.environment)}`}>{c.environment}</PageLink>
              <span className="muted"> #{c.snapshot_index}</span>
            </td>
            <td>
              {c.artifact_name} <Digest value={c.fingerprint} />
            </td>
            <td>
              {c.flow && c.trail ? (
                <PageLink to={`flows/${encodeURIComponent(c.flow)}/trails/${encodeURIComponent(c.trail)}`}>
                  {c.flow} / {c.trail}
                </PageLink>
              ) : (
                <span className="muted">no provenance</span>
              )}
            </td>
            <td>
              <Badge ok={c.compliant} yes="yes" no="no" />
            </td>
            <td>
              {c.gaps.length === 0 ? (
                <span className="muted">none</span>
              ) : (
                <ul className="gaps">
                  {c.gaps.map((g, i) => (
                    <li key={i}>
                      <strong>{g.kind.replace(/_/g, ' ')}</strong>: {g.detail}
                    </li>
                  ))}
                </ul>
              )}
            </td>
            {evidence && (
              <td>
                <EvidenceList evidence={c.evidence} />
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A change's evidence at the pin: the trail's attestations and the artifact's own, each with its state and instant. */
function EvidenceList({ evidence }: { evidence: Schemas['ChangeEvidenceView'] }) {
  const items = [
    ...Object.entries(evidence.trail).map(([name, e]) => [`trail/${name}`, e] as const),
    ...Object.entries(evidence.artifact).map(([name, e]) => [`artifact/${name}`, e] as const),
  ];
  if (!items.length) return <span className="muted">none</span>;
  return (
    <ul className="evidence">
      {items.map(([name, e]) => (
        <li key={name}>
          <Badge ok={e.compliant} yes="compliant" no="non-compliant" /> {name}{' '}
          <span className="muted">({e.type})</span> <Instant seconds={e.recorded_at} />
          {e.authors && <div className="muted">by {e.authors.join(', ')}</div>}
          {e.approvers && <div className="muted">approved by {e.approvers.join(', ') || 'nobody'}</div>}
        </li>
      ))}
    </ul>
  );
}
