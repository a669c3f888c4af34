import { type FormEvent, useState } from 'react';
import { answer, clientFor, type Schemas, useAnswer, useSession } from '../api';
import { useAsOf } from '../as-of';
import { Instant, Loaded, Section } from '../ui';

type Checkpoint = Schemas['CheckpointView'];
type Check = { ok: true; kept: Checkpoint; matches: boolean } | { ok: false; problem: string };

/**
 * The organization's ledger: its latest signed checkpoint at the page's
 * instant (the tree of its events, its root, the last event it covers), and a
 * check of the checkpoint a printed report names against the one the service
 * kept for that tree size.
 */
export function Ledger() {
  const session = useSession();
  const { org } = session;
  const at = useAsOf();
  const head = useAnswer(
    async (des) => answer(des.GET('/api/v2/ledger/{org}/head', { params: { path: { org }, query: { at } } })),
    [at],
  );
  const [check, setCheck] = useState<Check | null>(null);

  const verify = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const size = Number(String(form.get('size') ?? '').trim());
    const root = String(form.get('root') ?? '').trim();
    const got = await answer(
      clientFor(session).GET('/api/v2/ledger/{org}/checkpoint', {
        params: { path: { org }, query: { tree_size: size } },
      }),
    );
    setCheck(
      got.ok
        ? { ok: true, kept: got.data, matches: got.data.root_hash === root }
        : { ok: false, problem: `The service answered ${got.status}: ${got.message}` },
    );
  };

  return (
    <>
      <h1>Ledger</h1>
      <p>
        Every event of the organization is a leaf of its Merkle tree (RFC 9162). The service signs a
        checkpoint of the tree, its size and root hash, as it grows; a checkpoint pins the whole history up to
        its size. Below: the latest checkpoint {at ? 'kept by the page’s instant' : 'kept'}.
      </p>
      <Section id="checkpoint" title="Checkpoint">
        <Loaded answer={head}>
          {(h) => (
            <dl className="facts">
              <dt>Tree size</dt>
              <dd data-ledger-size>{h.tree_size}</dd>
              <dt>Root hash</dt>
              <dd>
                <code data-ledger-root>{h.root_hash}</code>
              </dd>
              <dt>Signed</dt>
              <dd>
                <Instant seconds={h.signed_at} />
              </dd>
              <dt>Last event covered</dt>
              <dd>
                position <span data-ledger-position>{h.position}</span>, recorded{' '}
                <Instant seconds={h.recorded_at} />
              </dd>
            </dl>
          )}
        </Loaded>
      </Section>
      <Section id="check" title="Check a printed report">
        <ol className="steps">
          <li>Find the signed checkpoint the report prints: its tree size and its root.</li>
          <li>Enter both below: the workspace asks the service for the checkpoint it kept for that size.</li>
          <li>
            The roots match: the history the report was made from is the one the service signed, unchanged.
            They differ: the report was altered, or the service's history was.
          </li>
        </ol>
        <form className="check" onSubmit={verify}>
          <label htmlFor="size-input">The tree size it prints</label>
          <input id="size-input" name="size" required inputMode="numeric" pattern="[1-9][0-9]*" />
          <label htmlFor="root-input">The root it prints</label>
          <input
            id="root-input"
            name="root"
            required
            pattern="[A-Za-z0-9+/]{43}="
            title="44 characters of base64"
          />
          <button type="submit">Check</button>
        </form>
        {check && (
          <div role="status" className={check.ok && check.matches ? 'verdict ok' : 'verdict bad'}>
            {!check.ok
              ? check.problem
              : check.matches
                ? `The roots match: the service signed this tree of ${check.kept.tree_size} events.`
                : `The roots differ: the service's checkpoint of ${check.kept.tree_size} events has root ${check.kept.root_hash}.`}
          </div>
        )}
      </Section>
    </>
  );
}
