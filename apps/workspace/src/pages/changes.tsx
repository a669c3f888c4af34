import { type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { answer, clientFor, fileOf, json, type Schemas, useAnswer, useSession } from '../api';
import { localInput, useAsOf } from '../as-of';
import { isoAt } from '../format';
import { DownloadButton, Instant, Loaded, Pager, Section } from '../ui';
import { ChangeRows } from './organization';

type GapKind = Schemas['GapView']['kind'];

const GAPS: [GapKind, string][] = [
  ['no_provenance', 'No provenance'],
  ['non_compliant', 'Non-compliant'],
  ['missing_attestation', 'Missing attestation'],
  ['late_evidence', 'Late evidence'],
  ['self_approved', 'Self-approved'],
];
const PER_PAGE = 50;

/** The population's filters as the URL holds them, in the API's terms. */
function usePopulation() {
  const [params, setParams] = useSearchParams();
  const at = useAsOf();
  const filters = {
    at,
    from: params.get('from') ?? undefined,
    to: params.get('to') ?? undefined,
    environments: params.get('environments') ?? undefined,
  };
  return {
    params,
    setParams,
    filters,
    gaps: params.get('gaps') ?? undefined,
    page: Number(params.get('page') ?? 1),
    seed: params.get('seed') ?? undefined,
    size: params.get('size') ? Number(params.get('size')) : undefined,
  };
}

/**
 * The change population of a period (as known at the page's instant): its
 * total and hash, the changes with the gaps asked for, a CSV of them, and a
 * reproducible sample with each change's evidence.
 */
export function Changes() {
  const { org } = useSession();
  const session = useSession();
  const { params, setParams, filters, gaps, page, seed, size } = usePopulation();
  const environments = useAnswer(
    async (des) =>
      answer(des.GET('/api/v2/environments/{org}', { params: { path: { org }, query: { at: filters.at } } })),
    [filters.at],
  );
  const listed = useAnswer(
    async (des) =>
      json(
        await answer(
          des.GET('/api/v2/audit/{org}/changes', {
            params: { path: { org }, query: { ...filters, gaps, page, per_page: PER_PAGE } },
          }),
        ),
      ),
    [filters.at, filters.from, filters.to, filters.environments, gaps, page],
  );
  const sample = useAnswer<Schemas['ChangesSample'] | null>(
    async (des) =>
      seed && size
        ? answer(
            des.GET('/api/v2/audit/{org}/changes/sample', {
              params: { path: { org }, query: { ...filters, seed, size } },
            }),
          )
        : { ok: true as const, data: null },
    [filters.at, filters.from, filters.to, filters.environments, seed, size],
  );

  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next = new URLSearchParams(params);
    for (const name of ['from', 'to'] as const) {
      const value = String(form.get(name) ?? '');
      if (value) next.set(name, new Date(value).toISOString());
      else next.delete(name);
    }
    for (const name of ['environments', 'gaps'] as const) {
      const chosen = form.getAll(name).map(String);
      if (chosen.length) next.set(name, chosen.join(','));
      else next.delete(name);
    }
    next.delete('page');
    setParams(next);
  };
  // A sample is drawn from the population as known at one instant, kept in the URL: drawn again, it is the same.
  const draw = (pin: number) => (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next = new URLSearchParams(params);
    if (!next.get('at')) next.set('at', isoAt(pin));
    next.set('seed', String(form.get('seed')));
    next.set('size', String(form.get('size')));
    setParams(next);
  };
  const chosenEnvironments = new Set(filters.environments?.split(',') ?? []);
  const chosenGaps = new Set(gaps?.split(',') ?? []);

  return (
    <>
      <h1>Changes</h1>
      <form className="filters" onSubmit={apply} aria-label="Population">
        <fieldset>
          <legend>Period</legend>
          <label htmlFor="from-input">From</label>
          <input
            id="from-input"
            name="from"
            type="datetime-local"
            step={1}
            defaultValue={filters.from ? localInput(filters.from) : ''}
          />
          <label htmlFor="to-input">To</label>
          <input
            id="to-input"
            name="to"
            type="datetime-local"
            step={1}
            defaultValue={filters.to ? localInput(filters.to) : ''}
          />
          <p className="hint">Empty: the 30 days before the page's instant.</p>
        </fieldset>
        <fieldset>
          <legend>Environments</legend>
          {environments?.ok ? (
            (Array.isArray(environments.data) ? environments.data : environments.data.environments).map(
              (e) => (
                <label key={e.name} className="check">
                  <input
                    type="checkbox"
                    name="environments"
                    value={e.name}
                    defaultChecked={chosenEnvironments.has(e.name)}
                  />
                  {e.name}
                  {e.type === 'logical' && <span className="muted"> (its members)</span>}
                </label>
              ),
            )
          ) : (
            <span className="muted">…</span>
          )}
          <p className="hint">None chosen: every physical environment.</p>
        </fieldset>
        <fieldset>
          <legend>Only changes with</legend>
          {GAPS.map(([kind, label]) => (
            <label key={kind} className="check">
              <input type="checkbox" name="gaps" value={kind} defaultChecked={chosenGaps.has(kind)} />
              {label}
            </label>
          ))}
          <p className="hint">None chosen: every change.</p>
        </fieldset>
        <button type="submit">Apply</button>
      </form>
      <Loaded answer={listed}>
        {(population) => (
          <>
            <Section
              id="population"
              title="Population"
              actions={
                <DownloadButton
                  label="CSV"
                  fetchFile={() =>
                    fileOf(
                      clientFor(session).GET('/api/v2/audit/{org}/changes', {
                        params: {
                          path: { org },
                          query: { ...filters, at: filters.at ?? isoAt(population.at), gaps },
                        },
                        headers: { Accept: 'text/csv' },
                        parseAs: 'blob',
                      }),
                      `${org}-changes.csv`,
                    )
                  }
                />
              }
            >
              <dl className="facts">
                <dt>Changes</dt>
                <dd data-population-total>{population.population_total}</dd>
                <dt>Period</dt>
                <dd>
                  <Instant seconds={population.from} /> to <Instant seconds={population.to} />
                </dd>
                <dt>Environments</dt>
                <dd>{population.environments.join(', ') || <span className="muted">none</span>}</dd>
                <dt>As known at</dt>
                <dd>
                  <Instant seconds={population.at} />
                  {!filters.at && (
                    <>
                      {' '}
                      <button
                        type="button"
                        className="secondary"
                        onClick={() => {
                          const next = new URLSearchParams(params);
                          next.set('at', isoAt(population.at));
                          setParams(next);
                        }}
                      >
                        Pin this instant
                      </button>
                    </>
                  )}
                </dd>
                <dt>SHA-256</dt>
                <dd>
                  <code data-population-sha256>{population.population_sha256}</code>
                </dd>
              </dl>
              <p className="hint">
                The SHA-256 of the change ids, sorted and joined by newlines: the CSV's first column gives the
                same with <code>sort | sha256sum</code>.
              </p>
              {population.gaps.length > 0 && (
                <p>
                  {population.total_count} of them with{' '}
                  {population.gaps.map((g) => g.replace(/_/g, ' ')).join(' or ')}.
                </p>
              )}
              {population.changes.length ? (
                <ChangeRows changes={population.changes} />
              ) : (
                <p className="muted">No change.</p>
              )}
              <Pager
                label="Population pages"
                page={population.page}
                totalPages={population.total_pages}
                onPage={(p) => {
                  const next = new URLSearchParams(params);
                  next.set('page', String(p));
                  setParams(next);
                }}
              />
            </Section>
            <Section id="sample" title="Sample">
              <form className="inline" onSubmit={draw(population.at)}>
                <label htmlFor="seed-input">Seed</label>
                <input id="seed-input" name="seed" required maxLength={128} defaultValue={seed ?? ''} />
                <label htmlFor="size-input">Size</label>
                <input
                  id="size-input"
                  name="size"
                  type="number"
                  min={1}
                  max={500}
                  required
                  defaultValue={size ?? 25}
                />
                <button type="submit">Draw</button>
              </form>
              <p className="hint">
                The changes whose SHA-256 of <code>seed:id</code> is smallest: the same seed over the same
                population draws the same sample, here or with <code>sha256sum</code>.
              </p>
              <Loaded answer={sample}>
                {(drawn) =>
                  drawn && (
                    <div data-sample={drawn.seed}>
                      <p>
                        {drawn.changes.length} of {drawn.population_total} changes drawn with seed{' '}
                        <code>{drawn.seed}</code> from the population as known at{' '}
                        <Instant seconds={drawn.at} />.
                      </p>
                      <ChangeRows changes={drawn.changes} evidence />
                    </div>
                  )
                }
              </Loaded>
            </Section>
          </>
        )}
      </Loaded>
    </>
  );
}
