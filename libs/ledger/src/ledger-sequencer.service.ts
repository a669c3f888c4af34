import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { type EventStore, UpcastingEventStore } from '#des/event-store';
import {
  CommandExecutor,
  CONFIG,
  type Config,
  EVENT_STORE,
  Metrics,
  READ_STORE,
  ROLE,
  type Role,
  runs,
  ServiceKey,
} from '#des/platform';
import { Lease } from '#des/projections';
import type { ReadStore } from '#des/read-store';
import { checkpointDecider, checkpointStream } from './checkpoint.decider';
import { checkpointTimestampDecider, checkpointTimestampStream } from './checkpoint-timestamp.decider';
import { LEDGER_CHECKPOINTS } from './checkpoints.projection';
import { rootAt } from './merkle';
import { checkpointText, type NoteSigner, noteSigner, signNote } from './signed-note';
import { requestTimestamp } from './timestamps';
import { TreeSequencer, withKeptTree } from './tree-sequencer';

/** The lease the one active sequencer holds in server mode. */
export const SEQUENCER_LEASE = 'ledger-sequencer';
const IDLE_MS = 100;
/** A failed TSA request is made again after this, doubling with each failure up to the maximum. */
const TIMESTAMP_RETRY_MS = 1000;
const TIMESTAMP_RETRY_MAX_MS = 5 * 60_000;

/** A signed checkpoint waiting for its TSA timestamp: the failed requests so far, and when to ask next. */
interface ToTimestamp {
  treeSize: number;
  note: string;
  failures: number;
  dueAt: number;
}
const FAILED_IDLE_MAX_MS = 5000;

/** The deployment's checkpoint signer: one Ed25519 key derived from the service key, the same in every process. */
export function ledgerSigner(config: Config, key: ServiceKey): NoteSigner {
  return noteSigner(config.ledger.name, key.derive('ledger checkpoint signing key'));
}

/**
 * Runs the transparency log's sequencer in processes that play the projector
 * role (under its own lease in server mode: one active at a time), and signs
 * a checkpoint of each organization's tree when it has grown, at most every
 * DES_LEDGER_CHECKPOINT_MS (ADR 0024).
 */
@Injectable()
export class LedgerSequencerService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ledger');
  private sequencer?: TreeSequencer;
  private running?: Promise<void>;
  private stopped = false;
  private wake?: () => void;
  private lastSigned = 0;
  /** Organizations grown since their last checkpoint, with their sizes. */
  private readonly pending = new Map<string, number>();
  private readonly signer: NoteSigner;
  private readonly lease?: Lease;
  /** Checkpoints to timestamp (DES_TSA_URL), the latest of each organization's, and the one request in flight. */
  private readonly toTimestamp = new Map<string, ToTimestamp>();
  private timestamping?: Promise<void>;

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    @Inject(ROLE) private readonly role: Role,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly executor: CommandExecutor,
    key: ServiceKey,
    private readonly metrics: Metrics,
  ) {
    this.signer = ledgerSigner(config, key);
    if (reads.kind === 'mongodb') this.lease = new Lease(reads, SEQUENCER_LEASE, config.projectorLeaseMs);
  }

  onApplicationBootstrap(): void {
    if (!runs(this.role, 'projector') || this.role === 'cli') return;
    this.running = this.loop();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
    await this.timestamping;
    await this.lease?.release().catch(() => undefined);
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        if (!(await this.holdsLease())) {
          // Another process sequences: what this one knew may be stale when the lease comes back.
          this.sequencer = undefined;
          this.pending.clear();
        } else {
          this.sequencer ??= new TreeSequencer(storedAsWritten(this.events), this.reads);
          let read = 0;
          do {
            read = await this.sequencer.step();
            if (read > 0 && this.sequencer.lastKept)
              this.metrics.ledgerIntegrationDelay.observe(
                Math.max(0, Date.now() / 1000 - this.sequencer.lastKept / 1e6),
              );
            for (const [org, size] of this.sequencer.takeGrown()) this.pending.set(org, size);
          } while (read > 0 && !this.stopped && !this.leaseRenewalDue());
          if (this.pending.size && Date.now() - this.lastSigned >= this.config.ledger.checkpointMs)
            await this.signCheckpoints();
          this.timestampDue();
        }
        this.failures = 0;
      } catch (error) {
        // A store that is down or a disk that is full fails every step: said once per back-off, not ten times a second.
        this.failures++;
        if (this.failures === 1 || this.failures % 10 === 0)
          this.logger.error(
            { err: error },
            `the ledger sequencer failed a step (${this.failures} in a row); it starts again from what is kept`,
          );
        this.sequencer = undefined;
      }
      await this.idle(Math.min(FAILED_IDLE_MAX_MS, IDLE_MS * 2 ** Math.min(this.failures, 8)));
    }
  }

  private leaseHeldAt = 0;
  /** Takes or renews the lease (server mode), a third of its time before it lapses; true while held. */
  private async holdsLease(): Promise<boolean> {
    if (!this.lease || !this.leaseRenewalDue()) return true;
    if (!(await this.lease.acquire())) return false;
    this.leaseHeldAt = Date.now();
    return true;
  }

  /** A long catch-up stops now and then to renew the lease (when a third of its time has gone). */
  private leaseRenewalDue(): boolean {
    return !!this.lease && Date.now() - this.leaseHeldAt >= this.config.projectorLeaseMs / 3;
  }

  private async signCheckpoints(): Promise<void> {
    this.lastSigned = Date.now();
    for (const [org, treeSize] of [...this.pending]) {
      const rootHash = await withKeptTree(this.reads, org, treeSize, (t) => rootAt(t, treeSize));
      const origin = `${this.config.ledger.name}/${org}`;
      const note = signNote(checkpointText({ origin, treeSize, rootHash }), this.signer);
      await this.executor.execute(
        checkpointStream(org),
        checkpointDecider,
        { org, origin, treeSize, rootHash: rootHash.toString('base64'), note },
        { actor: { kind: 'system', name: 'ledger-sequencer' } },
        { standalone: true, awaitReadModels: false },
      );
      this.pending.delete(org);
      if (this.config.ledger.tsaUrl) this.toTimestamp.set(org, { treeSize, note, failures: 0, dueAt: 0 });
    }
    this.timestampDue();
  }

  /** Starts the TSA requests that are due, unless some are in flight. */
  private timestampDue(): void {
    if (this.timestamping || this.stopped) return;
    const now = Date.now();
    if (![...this.toTimestamp.values()].some((t) => t.dueAt <= now)) return;
    this.timestamping = this.timestampCheckpoints(now).finally(() => (this.timestamping = undefined));
  }

  /**
   * Asks the TSA for an RFC 3161 timestamp of each due checkpoint's note, off
   * the sequencer's loop (a slow TSA delays no checkpoint), and keeps it as an
   * event; a checkpoint signed meanwhile replaces its organization's older
   * one. A failure is logged and asked again after a back-off (1 s, doubling
   * up to 5 min): the latest checkpoint gets its timestamp once the TSA
   * answers, even when no event comes after it.
   */
  private async timestampCheckpoints(now: number): Promise<void> {
    const tsa = this.config.ledger.tsaUrl as string;
    for (const [org, waiting] of [...this.toTimestamp]) {
      if (waiting.dueAt > now || this.stopped) continue;
      const { treeSize, note } = waiting;
      this.toTimestamp.delete(org);
      try {
        const response = await requestTimestamp(tsa, Buffer.from(note, 'utf8'));
        await this.executor.execute(
          checkpointTimestampStream(org, treeSize),
          checkpointTimestampDecider,
          { org, tree_size: treeSize, tsa, response: response.toString('base64') },
          { actor: { kind: 'system', name: 'ledger-sequencer' } },
          { standalone: true, awaitReadModels: false },
        );
      } catch (error) {
        const failures = waiting.failures + 1;
        const retryMs = Math.min(TIMESTAMP_RETRY_MAX_MS, TIMESTAMP_RETRY_MS * 2 ** (failures - 1));
        this.logger.warn(
          { err: error, org, treeSize, failures },
          `a checkpoint could not be timestamped; asking again in ${retryMs / 1000} s`,
        );
        // Unless a newer checkpoint of the organization is waiting: that one is asked for instead.
        if (!this.toTimestamp.has(org))
          this.toTimestamp.set(org, { treeSize, note, failures, dueAt: Date.now() + retryMs });
      }
    }
  }

  /** Consecutive failed steps: the next waits longer (up to 5 s). */
  private failures = 0;

  private idle(ms = IDLE_MS): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** The latest checkpoint of an organization kept by `at` (UNIX seconds), or now. */
  static async latestCheckpoint(reads: ReadStore, org: string, at?: number) {
    const [doc] = await reads
      .collection(LEDGER_CHECKPOINTS)
      .find(at === undefined ? { org } : { org, recorded_at: { $lte: at } }, {
        sort: { tree_size: -1 },
        limit: 1,
      });
    return doc ?? null;
  }
}

/** The log as written: leaves hash the stored bytes, never a later schema's reading of them (ADR 0016). */
export function storedAsWritten(events: EventStore): EventStore {
  return events instanceof UpcastingEventStore ? events.inner : events;
}
