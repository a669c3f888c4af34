import { useSearchParams } from 'react-router';

/** The instant the page shows, from `?at=` (ISO-8601, UTC); undefined: now. */
export function useAsOf(): string | undefined {
  const [params] = useSearchParams();
  return params.get('at') ?? undefined;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** An instant as a datetime-local input holds it: the viewer's own time zone. */
export function localInput(iso: string): string {
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/**
 * The "as of" picker every page carries: a date and time in the viewer's
 * time zone, shown beside UTC, kept in the URL so the view is a shareable,
 * repeatable link. Empty: now.
 */
export function AsOfPicker() {
  const [params, setParams] = useSearchParams();
  const at = params.get('at');
  const move = (iso: string | null) => {
    const next = new URLSearchParams(params);
    if (iso) next.set('at', iso);
    else next.delete('at');
    setParams(next);
  };
  return (
    <div className="as-of" role="group" aria-label="As of">
      <label htmlFor="as-of-input">As of</label>
      <input
        id="as-of-input"
        type="datetime-local"
        step={1}
        value={at ? localInput(at) : ''}
        onChange={(e) => move(e.target.value ? new Date(e.target.value).toISOString() : null)}
      />
      <span className="utc" aria-live="polite">
        {at ? `${at.replace('.000Z', 'Z')} (UTC)` : 'now'}
      </span>
      {at && (
        <button type="button" onClick={() => move(null)}>
          Now
        </button>
      )}
    </div>
  );
}
