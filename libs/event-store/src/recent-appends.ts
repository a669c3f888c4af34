/** An event as the SQLite log stores it: its data and metadata as the canonical text written. */
export interface StoredRow {
  position: number;
  event_id: string;
  stream: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
  recorded_at: number;
  /** The event's size as its append counted it, when this process appended it. */
  size?: number;
  /** Its data and metadata already parsed (while the commit's fsync ran), for the first reader to take. */
  parsed?: { data: Record<string, unknown>; metadata: Record<string, unknown> };
}

/** The bytes of the rows' data and metadata text (what `RecentAppends` bounds). */
export const textBytes = (rows: StoredRow[]) =>
  rows.reduce((n, row) => n + row.data.length + row.metadata.length, 0);

/**
 * The events this process committed last, as the rows it wrote: the live
 * follower (the in-process projector) reads what was just appended from here
 * instead of reading back, from the file, rows it handed to the writer a
 * moment before. Only a contiguous run of positions is answered, so an event
 * another process appended in between is always read from the log.
 */
export class RecentAppends {
  private readonly rows = new Map<number, StoredRow>();
  private bytes = 0;
  /** The highest position kept (0 before the first). */
  last = 0;

  constructor(
    private readonly maxRows = 4096,
    private readonly maxBytes = 32 * 1024 * 1024,
  ) {}

  keep(rows: StoredRow[]): void {
    for (const row of rows) {
      this.rows.set(row.position, row);
      this.bytes += textBytes([row]);
      this.last = Math.max(this.last, row.position);
    }
    for (const [position, row] of this.rows) {
      if (this.rows.size <= this.maxRows && this.bytes <= this.maxBytes) break;
      this.rows.delete(position);
      this.bytes -= textBytes([row]);
    }
  }

  /**
   * The kept rows from `after + 1` on, in position order, while positions
   * follow one another: at most `limit`, and no more once `maxBytes` of text
   * is reached. Undefined when the row at `after + 1` is not kept.
   */
  from(after: number, limit: number, maxBytes: number): StoredRow[] | undefined {
    if (!this.rows.has(after + 1)) return undefined;
    const run: StoredRow[] = [];
    let bytes = 0;
    for (let position = after + 1; run.length < limit && bytes < maxBytes; position++) {
      const row = this.rows.get(position);
      if (!row) break;
      run.push(row);
      bytes += textBytes([row]);
    }
    return run;
  }

  clear(): void {
    this.rows.clear();
    this.bytes = 0;
  }
}
