import { useParams } from 'react-router';
import { answer, useAnswer, useSession } from '../api';
import { useAsOf } from '../as-of';
import { Attestations, Commit, Places } from '../evidence';
import { Instant, JsonDetails, Loaded, PageLink, Section } from '../ui';

/** An artifact at the page's instant: the trail that built it, its commit, its attestations, where it runs and ran. */
export function Artifact() {
  const { flow = '', fingerprint = '' } = useParams();
  const { org } = useSession();
  const at = useAsOf();
  const shown = useAnswer(
    async (des) =>
      answer(
        des.GET('/api/v2/artifacts/{org}/{flow}/{fingerprint}', {
          params: { path: { org, flow, fingerprint }, query: { at } },
        }),
      ),
    [flow, fingerprint, at],
  );
  return (
    <Loaded answer={shown}>
      {(a) => (
        <>
          <h1>
            Artifact <span className="name">{a.filename}</span>
          </h1>
          <dl className="facts">
            <dt>Fingerprint</dt>
            <dd>
              <code className="digest">{a.fingerprint}</code>
            </dd>
            <dt>Built by</dt>
            <dd>
              <PageLink to={`flows/${encodeURIComponent(a.flow)}/trails/${encodeURIComponent(a.trail)}`}>
                {a.flow} / {a.trail}
              </PageLink>
            </dd>
            <dt>Commit</dt>
            <dd>
              <Commit commit={a.git_commit_info} />
            </dd>
            <dt>Reported</dt>
            <dd>
              <Instant seconds={a.reported_at} />
            </dd>
            <dt>Where</dt>
            <dd>
              <Places running={a.running} exited={a.exited} />
            </dd>
          </dl>
          <JsonDetails summary="Annotations" value={a.annotations} />
          <JsonDetails summary="User data" value={a.user_data} />
          <Section id="attestations" title="Attestations">
            <Attestations attestations={a.attestations} place={{ flow: a.flow, trail: a.trail, at }} />
          </Section>
        </>
      )}
    </Loaded>
  );
}
