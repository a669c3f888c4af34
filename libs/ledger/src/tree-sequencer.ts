import { canonicalTextOf, orgOf, type EventStore, type StoredEvent } from '#des/event-store';
import type { ReadStore } from '#des/read-store';
import { leafHash, type TreeHashes } from './merkle';
import { TILE_WIDTH, tileKey, type TileName, tilesNeeded, TileTree, TileWriter } from './tiles';

/** Each organization's tree: its size and the log position of its last leaf. */
export const LEDGER_TREES = 'ledger_trees';
/** The trees' perfect nodes, 256 to a tile: `<org>/<level>/<index>`. */
export const LEDGER_TILES = 'ledger_tiles';
/** Which log position each leaf is, 256 to a document: `<org>/<index>`. */
export const LEDGER_ENTRIES = 'ledger_entries';
/** How far the sequencer has read the log. */
export const LEDGER_SEQUENCER = 'ledger_sequencer';

const HASH_BYTES = 32;

interface OrgTree {
  size: number;
  position: number;
  writer: TileWriter;
  /** The entries document being filled: its index and the positions it holds. */
  entries: { index: number; positions: number[] };
  /** Entries documents filled up since the last persist: written with the one being filled. */
  filled: { index: number; positions: number[] }[];
  touched: boolean;
}

/**
 * The sequencer of the transparency log (issue 32): reads the log in order,
 * after it is written (no append-time serialization, so it runs on KurrentDB
 * too), and integrates each organization's events as leaves of that
 * organization's RFC 9162 tree (leaf = SHA-256(0x00 ‖ the event's canonical
 * text)). Events of no organization (the service's own, checkpoints among
 * them) are in no tree. A batch writes its tiles and entries first, then the
 * trees, then its position: after a crash, what a tree does not count is
 * written again the same way, and what it counts is skipped.
 */
export class TreeSequencer {
  private readonly trees = new Map<string, OrgTree>();
  private position?: number;
  /** Organizations whose trees grew since `takeGrown`, with their sizes now (as kept). */
  private readonly grown = new Map<string, number>();
  /** The commit instant (µs) of the newest event the last step kept in its tree. */
  lastKept?: number;

  constructor(
    private readonly events: EventStore,
    private readonly reads: ReadStore,
    private readonly batchSize = 1000,
  ) {}

  /** Integrates the next batch of the log; answers how many events it read (0: caught up). */
  async step(): Promise<number> {
    this.position ??=
      ((await this.reads.collection(LEDGER_SEQUENCER).findOne({ _id: 'sequencer' }))?.position as
        number | undefined) ?? 0;
    const batch = await (this.events.readRecent?.(this.position, this.batchSize) ??
      this.events.readAll(this.position, this.batchSize));
    if (batch.length === 0) return 0;
    for (const event of batch) await this.integrate(event);
    await this.persist(batch[batch.length - 1].position);
    this.lastKept = batch[batch.length - 1].recordedAt;
    return batch.length;
  }

  /** Steps until the log's head when it began is integrated. */
  async catchUp(): Promise<void> {
    const head = (await this.events.head()).position;
    while ((this.position ?? 0) < head && (await this.step()) > 0);
  }

  private async integrate(event: StoredEvent): Promise<void> {
    const org = orgOf(event.metadata);
    if (!org) return;
    const tree = await this.treeOf(org);
    if (event.position <= tree.position) return;
    tree.writer.append(leafHash(canonicalTextOf(event)));
    if (tree.entries.positions.length === TILE_WIDTH) {
      tree.filled.push(tree.entries);
      tree.entries = { index: tree.entries.index + 1, positions: [] };
    }
    tree.entries.positions.push(event.position);
    tree.size++;
    tree.position = event.position;
    tree.touched = true;
  }

  private async persist(position: number): Promise<void> {
    const touched = [...this.trees.entries()].filter(([, t]) => t.touched);
    const tiles = touched.flatMap(([org, t]) =>
      t.writer.drain().map(({ name, bytes }) => ({
        filter: { _id: `${org}/${tileKey(name)}` },
        update: { $set: { org, level: name.level, index: name.index, hashes: bytes.toString('base64') } },
        upsert: true,
      })),
    );
    const entries = touched.flatMap(([org, t]) =>
      [...t.filled, t.entries].map(({ index, positions }) => ({
        filter: { _id: `${org}/${index}` },
        update: { $set: { org, index, positions } },
        upsert: true,
      })),
    );
    await this.bulk(LEDGER_TILES, tiles);
    await this.bulk(LEDGER_ENTRIES, entries);
    await this.bulk(
      LEDGER_TREES,
      touched.map(([org, t]) => ({
        filter: { _id: org },
        update: { $set: { org, size: t.size, position: t.position } },
        upsert: true,
      })),
    );
    await this.reads
      .collection(LEDGER_SEQUENCER)
      .updateOne({ _id: 'sequencer' }, { $set: { position } }, { upsert: true });
    for (const [org, t] of touched) {
      t.touched = false;
      t.filled = [];
      this.grown.set(org, t.size);
    }
    this.position = position;
  }

  /** The organizations whose kept trees grew since the last call, with their sizes. */
  takeGrown(): Map<string, number> {
    const grown = new Map(this.grown);
    this.grown.clear();
    return grown;
  }

  private async bulk(collection: string, ops: { filter: object; update: object; upsert: boolean }[]) {
    if (!ops.length) return;
    const outcome = await this.reads.collection(collection).bulkUpdate(ops as never);
    if (outcome.failedAt !== undefined) throw outcome.error ?? new Error(`writing ${collection} failed`);
  }

  /** An organization's tree as kept: its size, and the last tile of each level cut to that size. */
  private async treeOf(org: string): Promise<OrgTree> {
    const known = this.trees.get(org);
    if (known) return known;
    const doc = await this.reads.collection(LEDGER_TREES).findOne({ _id: org });
    const size = (doc?.size as number | undefined) ?? 0;
    const last: { name: TileName; bytes: Buffer }[] = [];
    for (let level = 0; size >> level > 0; level++) {
      const nodes = Math.floor(size / 2 ** level);
      const name = { level, index: Math.floor((nodes - 1) / TILE_WIDTH) };
      const bytes = await tileBytes(this.reads, org, name);
      // A batch that crashed before its trees may have written past them: the tree's size is the truth.
      last.push({ name, bytes: bytes.subarray(0, (nodes - name.index * TILE_WIDTH) * HASH_BYTES) });
    }
    const entriesIndex = Math.floor(Math.max(size - 1, 0) / TILE_WIDTH);
    const kept = await this.reads.collection(LEDGER_ENTRIES).findOne({ _id: `${org}/${entriesIndex}` });
    const tree: OrgTree = {
      size,
      position: (doc?.position as number | undefined) ?? 0,
      writer: new TileWriter(size, last),
      entries: {
        index: entriesIndex,
        positions: ((kept?.positions as number[] | undefined) ?? []).slice(
          0,
          size - entriesIndex * TILE_WIDTH,
        ),
      },
      filled: [],
      touched: false,
    };
    this.trees.set(org, tree);
    return tree;
  }
}

async function tileBytes(reads: ReadStore, org: string, name: TileName): Promise<Buffer> {
  const doc = await reads.collection(LEDGER_TILES).findOne({ _id: `${org}/${tileKey(name)}` });
  return Buffer.from((doc?.hashes as string | undefined) ?? '', 'base64');
}

/** An organization's tree size as the sequencer has integrated it (0: none yet). */
export async function integratedSize(reads: ReadStore, org: string): Promise<number> {
  return ((await reads.collection(LEDGER_TREES).findOne({ _id: org }))?.size as number | undefined) ?? 0;
}

/**
 * Runs `compute` over the first `size` leaves of an organization's kept
 * tree, having fetched just the tiles it reads.
 */
export async function withKeptTree<T>(
  reads: ReadStore,
  org: string,
  size: number,
  compute: (tree: TreeHashes) => T,
): Promise<T> {
  const names = tilesNeeded(size, compute);
  const tiles = new Map<string, Buffer>();
  for (const name of names) tiles.set(tileKey(name), await tileBytes(reads, org, name));
  return compute(new TileTree(size, tiles));
}

/** The log position of an organization's leaf `index`, or null beyond its tree. */
export async function entryPosition(reads: ReadStore, org: string, index: number): Promise<number | null> {
  const doc = await reads
    .collection(LEDGER_ENTRIES)
    .findOne({ _id: `${org}/${Math.floor(index / TILE_WIDTH)}` });
  return ((doc?.positions as number[] | undefined) ?? [])[index % TILE_WIDTH] ?? null;
}

/**
 * The leaf index of each log position among the first `size` leaves of an
 * organization's tree (absent: not one of them). A binary search of the kept
 * entries (256 positions a document) for each position, the documents read
 * once: ascending positions share most of their searches.
 */
export async function leafIndexes(
  reads: ReadStore,
  org: string,
  size: number,
  positions: number[],
): Promise<Map<number, number>> {
  const documents = Math.ceil(size / TILE_WIDTH);
  const kept = new Map<number, number[]>();
  const entries = async (k: number) => {
    let doc = kept.get(k);
    if (!doc) {
      const found = await reads.collection(LEDGER_ENTRIES).findOne({ _id: `${org}/${k}` });
      doc = ((found?.positions as number[] | undefined) ?? []).slice(0, size - k * TILE_WIDTH);
      kept.set(k, doc);
    }
    return doc;
  };
  const found = new Map<number, number>();
  let from = 0;
  for (const position of [...positions].sort((a, b) => a - b)) {
    let [lo, hi] = [from, documents - 1];
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (((await entries(mid))[0] ?? Infinity) <= position) lo = mid;
      else hi = mid - 1;
    }
    if (hi < 0) break;
    from = lo;
    const doc = await entries(lo);
    const at = sortedIndexOf(doc, position);
    if (at >= 0) found.set(position, lo * TILE_WIDTH + at);
  }
  return found;
}

function sortedIndexOf(sorted: number[], value: number): number {
  let [lo, hi] = [0, sorted.length - 1];
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] === value) return mid;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
