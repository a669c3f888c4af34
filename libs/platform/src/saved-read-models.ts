import { eventAt, type EventStore, type StoredEvent } from '#des/event-store';
import { loadReadModels, MemoryReadStore, saveReadModels } from '#des/read-store';
import { codeFingerprint } from './code-fingerprint';

export interface SavedReadModelsLogger {
  log(message: string): void;
  warn(message: string): void;
  error(message: string, error?: unknown): void;
}

/**
 * Embedded mode's read models outlive a restart: saved to one file (whole or
 * not at all) at most every `intervalMs` as batches are applied and at
 * shutdown, loaded at start when the code that wrote them and the log they
 * came from are the same; the projector then catches up from their
 * checkpoints. Anything else means a rebuild from the log.
 */
export class SavedReadModels {
  private latest?: StoredEvent;
  private savedPosition = -1;
  private lastSaveAt = Date.now();
  private saving?: Promise<void>;

  constructor(
    private readonly path: string,
    private readonly store: MemoryReadStore,
    private readonly events: EventStore,
    private readonly intervalMs: number,
    private readonly logger: SavedReadModelsLogger,
  ) {}

  /** Loads the saved read models into the store, or leaves it empty (to be rebuilt) and says why. */
  async load(): Promise<boolean> {
    const started = Date.now();
    const outcome = await loadReadModels(this.path, this.store, codeFingerprint());
    if (!outcome.loaded) {
      this.logger.log(`read models rebuilt from the log: ${outcome.reason}`);
      return false;
    }
    const { position, eventId } = outcome.meta;
    if (position > 0) {
      const event = await eventAt(this.events, position);
      if (event?.id !== eventId) {
        this.store.clear();
        this.logger.warn(
          `read models rebuilt from the log: the saved read models (up to position ${position}) do not match the event log`,
        );
        return false;
      }
    }
    this.savedPosition = position;
    this.logger.log(
      `read models loaded: ${outcome.documents} documents up to log position ${position} in ${Date.now() - started} ms`,
    );
    return true;
  }

  /** The projector applied a batch: saves a copy of the store when the last save is old enough. */
  batchApplied(last: StoredEvent): void {
    this.latest = last;
    if (this.intervalMs <= 0 || this.saving || Date.now() - this.lastSaveAt < this.intervalMs) return;
    this.saving = this.save().finally(() => (this.saving = undefined));
  }

  /** The start's catch-up is done: what it applied is saved at once (a rebuild is not done twice). */
  caughtUp(): void {
    if (this.intervalMs <= 0 || this.saving || (this.latest?.position ?? 0) <= this.savedPosition) return;
    this.saving = this.save().finally(() => (this.saving = undefined));
  }

  /** Waits for a save under way, then saves what was applied since (the projector has stopped). */
  async close(): Promise<void> {
    await this.saving;
    if (this.intervalMs > 0 && (this.latest?.position ?? 0) > this.savedPosition) await this.save();
  }

  /** Saves a copy taken now (a fork costs what changed since the last one), written out in the background. */
  private async save(): Promise<void> {
    const copy = this.store.fork();
    const position = this.latest?.position ?? 0;
    const meta = {
      code: codeFingerprint(),
      position,
      eventId: this.latest?.id ?? null,
      savedAt: new Date().toISOString(),
    };
    this.lastSaveAt = Date.now();
    try {
      await saveReadModels(this.path, copy, meta);
      this.savedPosition = position;
    } catch (error) {
      this.logger.error(
        'saving the read models failed; they are rebuilt at the next start if need be',
        error,
      );
    }
  }
}
