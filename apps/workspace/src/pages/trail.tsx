import { useState } from 'react';
import { useParams } from 'react-router';
import { answer, clientFor, fileOf, useAnswer, useSession } from '../api';
import { useAsOf } from '../as-of';
import { Attestations, Commit, Places } from '../evidence';
import {
  Digest,
  DownloadButton,
  Instant,
  JsonDetails,
  Loaded,
  PageLink,
  Pager,
  Section,
  Status,
} from '../ui';

const TIMELINE_PAGE = 20;

/**
 * A trail at the page's instant: its compliance (what is missing, what
 * fails), its attestations with their data and files, its artifacts, its
 * timeline a page at a time, and its audit report as PDF.
 */
export function Trail() {
  const { flow = '', trail = '' } = useParams();
  const session = useSession();
  const { org } = session;
  const at = useAsOf();
  const shown = useAnswer(
    async (des) =>
      answer(
        des.GET('/api/v2/trails/{org}/{flow}/{trail}', {
          params: { path: { org, flow, trail }, query: { at } },
        }),
      ),
    [flow, trail, at],
  );
  const place = { flow, trail, at };
  return (
    <>
      <h1>
        Trail <span className="name">{trail}</span>
      </h1>
      <p className="crumbs">
        in flow <PageLink to={`flows/${encodeURIComponent(flow)}`}>{flow}</PageLink>
      </p>
      <Loaded answer={shown}>
        {(t) => (
          <>
            <dl className="facts">
              <dt>Compliance</dt>
              <dd data-compliance={t.compliance_state}>
                <Status status={t.compliance_state} />
              </dd>
              {t.compliance_status.missing.length > 0 && (
                <>
                  <dt>Missing</dt>
                  <dd>{t.compliance_status.missing.join(', ')}</dd>
                </>
              )}
              {t.compliance_status.failing.length > 0 && (
                <>
                  <dt>Failing</dt>
                  <dd>{t.compliance_status.failing.join(', ')}</dd>
                </>
              )}
              <dt>Commit</dt>
              <dd>
                <Commit commit={t.git_commit_info} />
              </dd>
              <dt>Created</dt>
              <dd>
                <Instant seconds={t.created_at} />
              </dd>
              <dt>Last change</dt>
              <dd>
                <Instant seconds={t.last_modified_at} />
              </dd>
            </dl>
            {t.description && <p>{t.description}</p>}
            <JsonDetails summary="User data" value={t.user_data} />
            <p className="files">
              <DownloadButton
                label="Audit report (PDF)"
                fetchFile={() =>
                  fileOf(
                    clientFor(session).GET('/api/v2/trails/{org}/{flow}/{trail}/audit_pdf', {
                      params: { path: { org, flow, trail }, query: { at } },
                      parseAs: 'blob',
                    }),
                    `${flow}-${trail}-audit.pdf`,
                  )
                }
              />
            </p>
            <Section id="attestations" title="Trail attestations">
              <Attestations attestations={t.attestations} place={place} />
            </Section>
            <Section id="artifacts" title={`Artifacts (${t.artifacts.length})`}>
              {t.artifacts.length === 0 && <p className="muted">No artifact.</p>}
              {t.artifacts.map((a) => (
                <article key={a.fingerprint} className="artifact" data-fingerprint={a.fingerprint}>
                  <h3>
                    <PageLink to={`flows/${encodeURIComponent(flow)}/artifacts/${a.fingerprint}`}>
                      {a.filename}
                    </PageLink>{' '}
                    <Digest value={a.fingerprint} />
                  </h3>
                  <Places running={a.running} exited={a.exited} />
                  <Attestations attestations={a.attestations} place={place} />
                </article>
              ))}
            </Section>
            <Timeline flow={flow} trail={trail} />
          </>
        )}
      </Loaded>
    </>
  );
}

function Timeline({ flow, trail }: { flow: string; trail: string }) {
  const { org } = useSession();
  const at = useAsOf();
  const [page, setPage] = useState(1);
  const entries = useAnswer(
    async (des) =>
      answer(
        des.GET('/api/v2/trails/{org}/{flow}/{trail}/events', {
          params: { path: { org, flow, trail }, query: { at, page, per_page: TIMELINE_PAGE } },
        }),
      ),
    [flow, trail, at, page],
  );
  return (
    <Section id="timeline" title="Timeline">
      <Loaded answer={entries}>
        {(timeline) => (
          <>
            <p className="muted">{timeline.total_count} entries, oldest first.</p>
            <ol className="timeline" start={(timeline.page - 1) * timeline.per_page + 1}>
              {timeline.events.map((e) => (
                <li key={e.seq}>
                  <Instant seconds={e.timestamp} /> <span className="event">{e.type.replace(/_/g, ' ')}</span>{' '}
                  {e.summary}
                </li>
              ))}
            </ol>
            <Pager
              label="Timeline pages"
              page={timeline.page}
              totalPages={timeline.total_pages}
              onPage={setPage}
            />
          </>
        )}
      </Loaded>
    </Section>
  );
}
