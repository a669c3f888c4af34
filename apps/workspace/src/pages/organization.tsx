import { useEffect, useState } from 'react';
import { answer, type Answer, clientFor } from '../api';
import { useAsOf } from '../as-of';
import { when } from '../format';
import type { Schemas } from '@des/client';
import type { Session } from '../session';

type Loaded = { environments: Schemas['EnvironmentView'][]; flows: Schemas['FlowView'][] };

function Instant({ seconds }: { seconds: number | null }) {
  const at = when(seconds);
  return at ? (
    <time dateTime={at.utc} title={`${at.utc} (UTC)`}>
      {at.text}
    </time>
  ) : (
    <span className="muted">never</span>
  );
}

/** The organization as of the page's instant: its environments with their state, and its flows. */
export function Organization({ session }: { session: Session }) {
  const at = useAsOf();
  const [loaded, setLoaded] = useState<Answer<Loaded> | null>(null);

  useEffect(() => {
    let current = true;
    const des = clientFor(session);
    const params = { path: { org: session.org }, query: { at } };
    void Promise.all([
      answer(des.GET('/api/v2/environments/{org}', { params })),
      answer(des.GET('/api/v2/flows/{org}', { params })),
    ]).then(([environments, flows]) => {
      if (!current) return;
      if (!environments.ok) return setLoaded(environments);
      if (!flows.ok) return setLoaded(flows);
      setLoaded({ ok: true, data: { environments: environments.data, flows: flows.data } });
    });
    return () => {
      current = false;
    };
  }, [session, at]);

  if (!loaded) return <p aria-busy="true">Loading…</p>;
  if (!loaded.ok)
    return (
      <p role="alert" className="problem">
        The service answered {loaded.status}: {loaded.message}
      </p>
    );
  const { environments, flows } = loaded.data;
  return (
    <>
      <section aria-labelledby="environments-title">
        <h2 id="environments-title">Environments</h2>
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
                  <td>{e.name}</td>
                  <td>{e.type}</td>
                  <td>
                    <span className={e.state ? 'badge ok' : 'badge bad'}>{e.state ? 'yes' : 'no'}</span>
                  </td>
                  <td>
                    <Instant seconds={e.last_reported_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="flows-title">
        <h2 id="flows-title">Flows</h2>
        {flows.length === 0 ? (
          <p className="muted">No flow {at ? 'at that instant' : 'yet'}.</p>
        ) : (
          <ul className="flows">
            {flows.map((f) => (
              <li key={f.name} data-flow={f.name}>
                <strong>{f.name}</strong> {f.description && <span className="muted">— {f.description}</span>}
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
