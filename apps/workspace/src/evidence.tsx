import { clientFor, fileOf, type Schemas, useSession } from './api';
import { Badge, Digest, DownloadButton, Instant, JsonDetails, PageLink } from './ui';

type Attestation = Schemas['AttestationViewDto'];

/** Where the trail is, for its attachments' downloads. */
export interface TrailPlace {
  flow: string;
  trail: string;
  at: string | undefined;
}

/** Attestations by name: their type, state, instant, data and files. */
export function Attestations({
  attestations,
  place,
}: {
  attestations: Record<string, Attestation>;
  place: TrailPlace;
}) {
  const entries = Object.entries(attestations);
  if (!entries.length) return <p className="muted">No attestation.</p>;
  return (
    <table className="attestations">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Type</th>
          <th scope="col">Compliant</th>
          <th scope="col">Reported</th>
          <th scope="col">Evidence</th>
        </tr>
      </thead>
      <tbody>
        {entries.map(([name, a]) => (
          <tr key={name} data-attestation={name}>
            <td>{name}</td>
            <td>{a.type}</td>
            <td>
              <Badge ok={a.compliant} yes="yes" no="no" />
            </td>
            <td>
              <Instant seconds={a.reported_at} />
            </td>
            <td>
              {a.description && <div>{a.description}</div>}
              {a.origin_url && /^https?:\/\//i.test(a.origin_url) && (
                <div>
                  <a href={a.origin_url} rel="noreferrer noopener" target="_blank">
                    Where it was made
                  </a>
                </div>
              )}
              <JsonDetails summary="Evidence data" value={a.evidence} />
              <JsonDetails summary="User data" value={a.user_data} />
              <JsonDetails summary="Annotations" value={a.annotations} />
              {(a.attachments ?? []).map((file) => (
                <Attachment key={file.sha256} file={file} place={place} />
              ))}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Attachment({ file, place }: { file: Schemas['AttachmentRefView']; place: TrailPlace }) {
  const session = useSession();
  return (
    <div className="attachment" data-attachment={file.filename}>
      <DownloadButton
        label={`${file.filename} (${bytes(file.size)})`}
        fetchFile={() =>
          fileOf(
            clientFor(session).GET('/api/v2/trails/{org}/{flow}/{trail}/attachments/{sha256}', {
              params: {
                path: { org: session.org, flow: place.flow, trail: place.trail, sha256: file.sha256 },
                query: { at: place.at },
              },
              parseAs: 'blob',
            }),
            file.filename,
          )
        }
      />{' '}
      <span className="muted">
        SHA-256 <Digest value={file.sha256} />
      </span>
    </div>
  );
}

function bytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KiB`;
  return `${(size / 1024 / 1024).toFixed(1)} MiB`;
}

/** Where an artifact runs, and where it ran. */
export function Places({
  running,
  exited,
}: {
  running: Schemas['RunningPlaceView'][];
  exited: Schemas['ExitedPlaceView'][];
}) {
  if (!running.length && !exited.length)
    return <span className="muted">never ran in a reported environment</span>;
  return (
    <ul className="places">
      {running.map((r) => (
        <li key={`r-${r.environment}-${r.snapshot_index}`}>
          runs in{' '}
          <PageLink to={`environments/${encodeURIComponent(r.environment)}`}>{r.environment}</PageLink> since{' '}
          <Instant seconds={r.since} />
        </li>
      ))}
      {exited.map((r) => (
        <li key={`e-${r.environment}-${r.snapshot_index}-${r.until}`}>
          ran in <PageLink to={`environments/${encodeURIComponent(r.environment)}`}>{r.environment}</PageLink>{' '}
          from <Instant seconds={r.since} /> to <Instant seconds={r.until} />
        </li>
      ))}
    </ul>
  );
}

/** A commit as the evidence names it. */
export function Commit({ commit }: { commit: Schemas['GitCommitInfoDto'] | null | undefined }) {
  if (!commit) return <span className="muted">none reported</span>;
  return (
    <>
      <Digest value={commit.sha1} length={7} /> {commit.message?.split('\n')[0]}
      {commit.author && <span className="muted"> — {commit.author}</span>}
      {commit.branch && <span className="muted"> on {commit.branch}</span>}
    </>
  );
}
