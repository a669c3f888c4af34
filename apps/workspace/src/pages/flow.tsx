import { useParams } from 'react-router';
import { answer, both, useAnswer, useSession } from '../api';
import { useAsOf } from '../as-of';
import { Instant, JsonDetails, Loaded, PageLink, Section, Status } from '../ui';

/** A flow at the page's instant: what it is, its template, its trails with their compliance. */
export function Flow() {
  const { flow = '' } = useParams();
  const { org } = useSession();
  const at = useAsOf();
  const shown = useAnswer(
    async (des) => {
      const params = { path: { org, flow }, query: { at } };
      return both(
        await answer(des.GET('/api/v2/flows/{org}/{flow}', { params })),
        await answer(des.GET('/api/v2/trails/{org}/{flow}', { params })),
      );
    },
    [flow, at],
  );
  return (
    <>
      <h1>
        Flow <span className="name">{flow}</span>
      </h1>
      <Loaded answer={shown}>
        {([f, trails]) => (
          <>
            {f.description && <p>{f.description}</p>}
            <JsonDetails summary="Template" value={f.template} />
            <Section id="trails" title={`Trails (${trails.length})`}>
              {trails.length === 0 ? (
                <p className="muted">No trail {at ? 'at that instant' : 'yet'}.</p>
              ) : (
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Trail</th>
                      <th scope="col">Compliance</th>
                      <th scope="col">Created</th>
                      <th scope="col">Last change</th>
                    </tr>
                  </thead>
                  <tbody>
                    {trails.map((t) => (
                      <tr key={t.name} data-trail={t.name}>
                        <td>
                          <PageLink
                            to={`flows/${encodeURIComponent(flow)}/trails/${encodeURIComponent(t.name)}`}
                          >
                            {t.name}
                          </PageLink>
                          {t.description && <div className="muted">{t.description}</div>}
                        </td>
                        <td>
                          <Status status={t.compliance_state} />
                        </td>
                        <td>
                          <Instant seconds={t.created_at} />
                        </td>
                        <td>
                          <Instant seconds={t.last_modified_at} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </Section>
          </>
        )}
      </Loaded>
    </>
  );
}
