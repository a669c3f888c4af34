import { type ReactNode, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { type Answer, useSession } from './api';
import { when } from './format';

/** An instant (UNIX seconds) in the viewer's time zone, UTC on hover and for machines. */
export function Instant({
  seconds,
  never = 'never',
}: {
  seconds: number | null | undefined;
  never?: string;
}) {
  const at = when(seconds);
  return at ? (
    <time dateTime={at.utc} title={`${at.utc} (UTC)`}>
      {at.text}
    </time>
  ) : (
    <span className="muted">{never}</span>
  );
}

/** A yes/no fact as a coloured badge with its words (never colour alone). */
export function Badge({ ok, yes, no }: { ok: boolean; yes: string; no: string }) {
  return <span className={ok ? 'badge ok' : 'badge bad'}>{ok ? yes : no}</span>;
}

/** A fact that is neither good nor bad (no report yet, incomplete). */
export function Neutral({ children }: { children: ReactNode }) {
  return <span className="badge neutral">{children}</span>;
}

/** A trail's or change's compliance status as the API names it. */
export function Status({ status }: { status: 'COMPLIANT' | 'NON-COMPLIANT' | 'INCOMPLETE' }) {
  if (status === 'INCOMPLETE') return <Neutral>incomplete</Neutral>;
  return <Badge ok={status === 'COMPLIANT'} yes="compliant" no="non-compliant" />;
}

/** A SHA-256 or commit, shortened, whole on hover and for copy. */
export function Digest({ value, length = 12 }: { value: string | null | undefined; length?: number }) {
  if (!value) return <span className="muted">none</span>;
  return (
    <code className="digest" title={value}>
      {value.slice(0, length)}
    </code>
  );
}

/** While an answer is on its way, and when it was a refusal. */
export function Loaded<T>({
  answer,
  children,
}: {
  answer: Answer<T> | null;
  children: (data: T) => ReactNode;
}) {
  if (!answer) return <p aria-busy="true">Loading…</p>;
  if (!answer.ok) return <Problem status={answer.status} message={answer.message} />;
  return <>{children(answer.data)}</>;
}

export function Problem({ status, message }: { status: number; message: string }) {
  return (
    <p role="alert" className="problem">
      The service answered {status}: {message}
    </p>
  );
}

/**
 * A link to another page of the organization (`to` within it: `changes`,
 * `environments/prod`) that keeps the page's instant: moving around the
 * workspace never silently jumps back to now.
 */
export function PageLink({ to, children, keep = true }: { to: string; children: ReactNode; keep?: boolean }) {
  const { org } = useSession();
  const [params] = useSearchParams();
  const at = params.get('at');
  const path = `/${encodeURIComponent(org)}${to ? `/${to}` : ''}`;
  const target = keep && at ? `${path}${path.includes('?') ? '&' : '?'}at=${encodeURIComponent(at)}` : path;
  return <Link to={target}>{children}</Link>;
}

/** A titled part of a page. */
export function Section({
  id,
  title,
  children,
  actions,
}: {
  id: string;
  title: string;
  children: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <section aria-labelledby={`${id}-title`}>
      <div className="section-head">
        <h2 id={`${id}-title`}>{title}</h2>
        {actions && <div className="actions">{actions}</div>}
      </div>
      {children}
    </section>
  );
}

/**
 * A download the key must authorize (a PDF, a CSV, an attachment): fetched
 * with the session's key, then handed to the browser as a file. A plain
 * link cannot carry the key, and the key never goes in a URL.
 */
export function DownloadButton({
  label,
  fetchFile,
}: {
  label: string;
  fetchFile: () => Promise<
    { ok: true; blob: Blob; filename: string } | { ok: false; status: number; message: string }
  >;
}) {
  const [state, setState] = useState<'idle' | 'busy' | { problem: string }>('idle');
  return (
    <span className="download">
      <button
        type="button"
        className="secondary"
        disabled={state === 'busy'}
        aria-busy={state === 'busy'}
        onClick={async () => {
          setState('busy');
          const file = await fetchFile();
          if (!file.ok) return setState({ problem: `The service answered ${file.status}: ${file.message}` });
          const url = URL.createObjectURL(file.blob);
          const a = document.createElement('a');
          a.href = url;
          a.download = file.filename;
          document.body.append(a);
          a.click();
          a.remove();
          setTimeout(() => URL.revokeObjectURL(url), 60_000);
          setState('idle');
        }}
      >
        {state === 'busy' ? `${label}…` : label}
      </button>
      {typeof state === 'object' && (
        <span role="alert" className="problem">
          {state.problem}
        </span>
      )}
    </span>
  );
}

/** Any JSON the evidence carries, folded away until asked for. */
export function JsonDetails({ summary, value }: { summary: string; value: unknown }) {
  const empty =
    value === null ||
    value === undefined ||
    (typeof value === 'object' && Object.keys(value as object).length === 0);
  if (empty) return null;
  return (
    <details>
      <summary>{summary}</summary>
      <pre>{JSON.stringify(value, null, 2)}</pre>
    </details>
  );
}

/** Page through a list the API answers a page at a time. */
export function Pager({
  page,
  totalPages,
  onPage,
  label,
}: {
  page: number;
  totalPages: number;
  onPage: (page: number) => void;
  label: string;
}) {
  if (totalPages <= 1) return null;
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" className="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {totalPages}
      </span>
      <button
        type="button"
        className="secondary"
        disabled={page >= totalPages}
        onClick={() => onPage(page + 1)}
      >
        Next
      </button>
    </nav>
  );
}
