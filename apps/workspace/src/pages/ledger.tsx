import { type FormEvent, useState } from 'react';
import { answer, clientFor, type Schemas, useAnswer, useSession } from '../api';
import { useAsOf } from '../as-of';
import { Instant, Loaded, Section } from '../ui';

type Head = Schemas['LedgerHeadView'];
type Check = { ok: true; head: Head; matches: boolean } | { ok: false; problem: string };

/**
 * The organization's ledger: the checkpoint (position and chained hash of
 * its latest event) at the page's instant, and a check of a printed report's
 * checkpoint against the one the service answers for the report's instant.
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
    const instant = String(form.get('instant') ?? '').trim();
    const hash = String(form.get('hash') ?? '')
      .trim()
      .toLowerCase();
    const got = await answer(
      clientFor(session).GET('/api/v2/ledger/{org}/head', {
        params: { path: { org }, query: { at: instant } },
      }),
    );
    setCheck(
      got.ok
        ? { ok: true, head: got.data, matches: got.data.hash === hash }
        : { ok: false, problem: `The service answered ${got.status}: ${got.message}` },
    );
  };

  return (
    <>
      <h1>Ledger</h1>
      <p>
        Every event the service records is chained to the one before it by a SHA-256 hash. The checkpoint
        below names the latest event {at ? 'recorded by the page’s instant' : 'recorded'}; a report prints the
        checkpoint of its instant, so anyone can later ask the service for the checkpoint of that instant and
        compare.
      </p>
      <Section id="checkpoint" title="Checkpoint">
        <Loaded answer={head}>
          {(h) => (
            <dl className="facts">
              <dt>Position</dt>
              <dd data-ledger-position>{h.position}</dd>
              <dt>Recorded</dt>
              <dd>
                <Instant seconds={h.recorded_at} never="nothing recorded yet" />
              </dd>
              <dt>Hash</dt>
              <dd>
                <code data-ledger-hash>{h.hash ?? 'none'}</code>
              </dd>
            </dl>
          )}
        </Loaded>
      </Section>
      <Section id="check" title="Check a printed report">
        <ol className="steps">
          <li>
            Find the instant the report is as of (printed in UNIX seconds and ISO-8601) and its ledger
            checkpoint hash.
          </li>
          <li>Enter both below: the workspace asks the service for the checkpoint at that instant.</li>
          <li>
            The hashes match: the log the report was made from is the log the service holds, unchanged. They
            differ: the log was altered after the report, or the report was.
          </li>
        </ol>
        <form className="check" onSubmit={verify}>
          <label htmlFor="instant-input">The report’s instant</label>
          <input
            id="instant-input"
            name="instant"
            required
            placeholder="1795459433.000016 or 2026-11-23T18:43:53.000016Z"
          />
          <label htmlFor="hash-input">The checkpoint hash it prints</label>
          <input
            id="hash-input"
            name="hash"
            required
            pattern="[0-9a-fA-F]{64}"
            title="64 hexadecimal digits"
          />
          <button type="submit">Check</button>
        </form>
        {check && (
          <div role="status" className={check.ok && check.matches ? 'verdict ok' : 'verdict bad'}>
            {!check.ok
              ? check.problem
              : check.matches
                ? `The hashes match: position ${check.head.position}, the log is as the report saw it.`
                : `The hashes differ: at that instant the service's checkpoint is ${check.head.hash ?? 'none'} (position ${check.head.position}).`}
          </div>
        )}
      </Section>
    </>
  );
}
