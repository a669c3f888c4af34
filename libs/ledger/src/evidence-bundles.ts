import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { randomUUID, createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import {
  canonicalTextOf,
  eventAt,
  orgOf,
  type EventMetadata,
  type EventStore,
  secondsToMicros,
  type StoredEvent,
  nextTurn,
  TimeSlice,
} from '#des/event-store';
import {
  AggregateCommand,
  ApiError,
  CONFIG,
  type Config,
  EVENT_STORE,
  bytesInSlices,
  jsonPieces,
  READ_STORE,
  ServiceKey,
} from '#des/platform';
import type { Doc, ReadStore } from '#des/read-store';
import { LEDGER_CHECKPOINTS } from './checkpoints.projection';
import {
  type BundleExported,
  bundleExportDecider,
  bundleExportStream,
  type BundleSubject,
  type RecordExport,
} from './bundle-export.decider';
import { LedgerSequencerService, ledgerSigner, storedAsWritten } from './ledger-sequencer.service';
import { inclusionProof, leafHash } from './merkle';
import { signNote } from './signed-note';
import { type StreamedMember, StreamedZip } from './streamed-zip';
import { leafIndexes, withKeptTree } from './tree-sequencer';

/** The format `verify.mjs` checks (manifest.json's `format`). */
export const BUNDLE_FORMAT = 'des-evidence-bundle/1';
/** How long an export waits for the sequencer to integrate and sign its newest events. */
const CHECKPOINT_WAIT_MS = 15_000;
const POLL_MS = 100;
const ZIP_EPOCH_MS = Date.UTC(1980, 0, 2);

/**
 * A file of the bundle, under the path it has in the zip: its bytes, or (a
 * kept attachment) its size, its SHA-256 and how to read it when its turn
 * in the zip comes, so that it is never held whole.
 */
export type BundleFile = { path: string; bytes: Buffer } | ({ sha256: string } & StreamedMember);

/** A bundle ready to send: its length, and its bytes as they are read. */
export interface BundleZip {
  size: number;
  manifestSha256: string;
  stream(): Readable;
}

/** Bytes of the zip buffered ahead of a client that reads slowly. */
const ZIP_HIGH_WATER_MARK = 256 * 1024;

/** A record of a bundle: its JSON, indented as people read it, made in slices that give the loop turns. */
export const jsonFile = async (path: string, value: unknown): Promise<BundleFile> => ({
  path,
  bytes: await bytesInSlices(
    (function* () {
      yield* jsonPieces(value, undefined, '');
      yield '\n';
    })(),
  ),
});

/** One JSON text a line. */
function* jsonLines(values: unknown[]): Generator<string> {
  for (const value of values) yield `${JSON.stringify(value)}\n`;
}

/** One event as the bundle proves it: the exact text hashed, and its path to the checkpoint's root. */
interface ProvenEvent {
  index: number;
  position: number;
  canonical: string;
  leaf_hash: string;
  inclusion: string[];
}

class RecordBundleExport extends AggregateCommand<RecordExport, { recorded: boolean }, BundleExported> {
  constructor(org: string, command: RecordExport, metadata: EventMetadata) {
    super(bundleExportStream(org, randomUUID()), bundleExportDecider, command, metadata, {
      awaitReadModels: false,
    });
  }
}

/** verify.mjs: the verifier compiled beside this file (bundle-verifier.mts), without its source-map line. */
const verifierSource = (() => {
  let source: string | undefined;
  return () =>
    (source ??= readFileSync(join(__dirname, 'bundle-verifier.mjs'), 'utf8').replace(
      /\n\/\/# sourceMappingURL=.*\n?$/,
      '\n',
    ));
})();

const README = `An evidence bundle of the Delivery Evidence Service.

Verify it with Node (20 or later) alone, nothing to install:

  unzip -o -q <this file>.zip verify.mjs && node verify.mjs <this file>.zip --key '<vkey>'

where <vkey> is the verifier key the service publishes (GET /api/v2/ledger/<org>/key, its
"vkey"). Without --key, verify.mjs uses key.txt from the bundle itself and says so.

manifest.json  every other file with its size and SHA-256 (manifest.sig signs its SHA-256)
records/       the records as the API answered them at the bundle's instant
reports/       the audit reports (PDF) at that instant
attachments/   the files attached to the attestations, by SHA-256
events.jsonl   every event the records come from: its canonical text, leaf hash and
               inclusion proof (RFC 9162) against checkpoint.txt
checkpoint.txt the organization's signed tree head (C2SP tlog-checkpoint)
checkpoint.tsr where the service has a time-stamping authority: its RFC 3161 timestamp of
               checkpoint.txt (openssl ts -verify -in checkpoint.tsr -data checkpoint.txt
               -CAfile <the TSA's certificate>)
key.txt        the verifier key that signed checkpoint.txt and manifest.sig
`;

/**
 * Evidence bundles (issue 32): a zip an auditor verifies offline. Its events
 * are proven against one signed checkpoint; every file is listed with its
 * SHA-256 in a manifest the deployment's key signs; each export is recorded
 * as an event of the organization (ADR 0025).
 */
@Injectable()
export class EvidenceBundles {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CONFIG) private readonly config: Config,
    private readonly key: ServiceKey,
    private readonly commands: CommandBus,
  ) {}

  /**
   * The bundle of `files` and of the organization's events in `streams` up to
   * `at` (UNIX seconds), recorded as exported by whoever `metadata` names.
   */
  async export(input: {
    org: string;
    subject: BundleSubject;
    at: number;
    streams: string[];
    /** Single events by log position (an environment's report, out of a long stream). */
    positions?: number[];
    files: BundleFile[];
    metadata: EventMetadata;
  }): Promise<BundleZip> {
    const { org, subject, at } = input;
    const events = await this.eventsOf(org, input.streams, input.positions ?? [], at);
    const { checkpoint, proven } = await this.prove(org, events);
    const signer = ledgerSigner(this.config, this.key);
    const text = (s: string) => Buffer.from(s, 'utf8');
    const members: BundleFile[] = [
      { path: 'README.txt', bytes: text(README) },
      ...input.files,
      { path: 'events.jsonl', bytes: await bytesInSlices(jsonLines(proven)) },
      { path: 'checkpoint.txt', bytes: text(checkpoint.note) },
      ...(checkpoint.timestamp
        ? [{ path: 'checkpoint.tsr', bytes: Buffer.from(checkpoint.timestamp, 'base64') }]
        : []),
      { path: 'key.txt', bytes: text(`${signer.vkey}\n`) },
      { path: 'verify.mjs', bytes: text(verifierSource()) },
    ];
    const manifest = Buffer.from(
      `${JSON.stringify(
        {
          format: BUNDLE_FORMAT,
          org,
          subject,
          at,
          exported_at: Date.now() / 1000,
          exported_by: input.metadata.actor?.name ?? null,
          checkpoint: {
            origin: checkpoint.origin,
            tree_size: checkpoint.tree_size,
            root_hash: checkpoint.root_hash,
          },
          events: proven.length,
          members: await Promise.all(
            members.map(async (member) =>
              'bytes' in member
                ? { path: member.path, size: member.bytes.length, sha256: await sha256Of(member.bytes) }
                : { path: member.path, size: member.size, sha256: member.sha256 },
            ),
          ),
        },
        null,
        2,
      )}\n`,
    );
    const manifestSha256 = createHash('sha256').update(manifest).digest('hex');
    const signature = signNote(`${checkpoint.origin} evidence bundle\nsha256:${manifestSha256}\n`, signer);
    const zip = await StreamedZip.of(
      [
        { path: 'manifest.json', bytes: manifest, deflate: true },
        { path: 'manifest.sig', bytes: text(signature), deflate: true },
        ...members.map((member) =>
          'bytes' in member
            ? // PDFs and attachments are mostly compressed already: stored, they cost no time.
              { ...member, deflate: /\.(json|jsonl|txt|mjs)$/.test(member.path) }
            : member,
        ),
      ],
      // Members are dated the instant shown; a zip dates nothing before 1980 (DOS time).
      new Date(Math.max(at * 1000, ZIP_EPOCH_MS)),
    );
    await this.commands.execute(
      new RecordBundleExport(
        org,
        {
          subject,
          at,
          manifest_sha256: manifestSha256,
          tree_size: checkpoint.tree_size,
          events: proven.length,
          bytes: zip.size,
        },
        input.metadata,
      ),
    );
    return {
      size: zip.size,
      manifestSha256,
      stream: () => Readable.from(zip.bytes(), { objectMode: false, highWaterMark: ZIP_HIGH_WATER_MARK }),
    };
  }

  /**
   * The organization's events of `streams`, and at `positions`, recorded by
   * `at`, as written (the text its tree hashed), once each, in log order.
   */
  private async eventsOf(
    org: string,
    streams: string[],
    positions: number[],
    at: number,
  ): Promise<StoredEvent[]> {
    const store = storedAsWritten(this.events);
    const until = secondsToMicros(at);
    const read = await Promise.all(
      [...new Set(streams)].map((s) => store.readStream(s, { untilRecordedAt: until })),
    );
    const single = await Promise.all([...new Set(positions)].map((p) => eventAt(store, p)));
    const byPosition = new Map<number, StoredEvent>();
    for (const e of [...read.flat(), ...single])
      if (e && orgOf(e.metadata) === org && e.recordedAt <= until) byPosition.set(e.position, e);
    return [...byPosition.values()].sort((a, b) => a.position - b.position);
  }

  /**
   * Each event's inclusion proof against the organization's latest signed
   * checkpoint, once one covers them all: the sequencer signs within about
   * DES_LEDGER_CHECKPOINT_MS of an append, so this waits that long at most
   * for the newest (503 past CHECKPOINT_WAIT_MS). With a TSA configured, it
   * waits as long for a covering checkpoint the TSA has timestamped, and
   * takes the latest without a timestamp past that.
   */
  private async prove(org: string, events: StoredEvent[]) {
    const deadline = Date.now() + CHECKPOINT_WAIT_MS;
    for (;;) {
      const latest = await LedgerSequencerService.latestCheckpoint(this.reads, org);
      // A checkpoint is signed over a kept tree: its entries hold every leaf it counts.
      const indexes = await leafIndexes(
        this.reads,
        org,
        (latest?.tree_size as number | undefined) ?? 0,
        events.map((e) => e.position),
      );
      const leaves = events.map((e) => indexes.get(e.position) as number);
      const checkpoint =
        latest && indexes.size === events.length
          ? await this.timestamped(
              org,
              latest,
              leaves.reduce((most, i) => Math.max(most, i + 1), 0),
              deadline,
            )
          : undefined;
      if (checkpoint) {
        const size = checkpoint.tree_size as number;
        const paths = await withKeptTree(this.reads, org, size, (t) =>
          leaves.map((i) => inclusionProof(t, i, size)),
        );
        // Each event's text and hash in slices: a trail of large attestations is megabytes of them.
        const slice = new TimeSlice();
        const proven: ProvenEvent[] = [];
        for (const [n, event] of events.entries()) {
          const canonical = canonicalTextOf(event);
          proven.push({
            index: leaves[n],
            position: event.position,
            canonical,
            leaf_hash: leafHash(canonical).toString('base64'),
            inclusion: paths[n].map((h) => h.toString('base64')),
          });
          await slice.turn();
        }
        return {
          checkpoint: checkpoint as unknown as {
            origin: string;
            tree_size: number;
            root_hash: string;
            note: string;
            timestamp?: string;
          },
          proven,
        };
      }
      if (Date.now() >= deadline)
        throw new ApiError(
          503,
          'The transparency log has not signed a checkpoint covering these events yet; retry shortly',
          null,
          { 'Retry-After': '5' },
        );
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /**
   * The checkpoint to prove against: `latest` without a TSA or with its
   * timestamp; else the latest timestamped one of `needed` leaves or more;
   * undefined to wait for one, until `deadline`, when `latest` will do.
   */
  private async timestamped(org: string, latest: Doc, needed: number, deadline: number) {
    if (!this.config.ledger.tsaUrl || latest.timestamp) return latest;
    const [stamped] = await this.reads
      .collection(LEDGER_CHECKPOINTS)
      .find(
        { org, tree_size: { $gte: needed }, timestamp: { $exists: true } },
        { sort: { tree_size: -1 }, limit: 1 },
      );
    return stamped ?? (Date.now() >= deadline ? latest : undefined);
  }
}

/** The SHA-256 (hex) of `bytes`, a slice at a time, giving the loop a turn between slices of a large one. */
async function sha256Of(bytes: Buffer): Promise<string> {
  const SLICE = 4 * 1024 * 1024;
  const hash = createHash('sha256');
  for (let at = 0; at < bytes.length; at += SLICE) {
    hash.update(bytes.subarray(at, at + SLICE));
    if (at + SLICE < bytes.length) await nextTurn();
  }
  return hash.digest('hex');
}
