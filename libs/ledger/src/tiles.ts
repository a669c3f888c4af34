import { type Hash, nodeHash, type TreeHashes } from './merkle';

/**
 * A tree's perfect nodes kept in tiles: each level's hashes in runs of 256,
 * a tile named by (level, index). A tile is written as the leaves under it
 * arrive and never changes once full, so tiles cache forever and a reader
 * needs only the few that hold the nodes a proof uses.
 */
export const TILE_WIDTH = 256;
const HASH_BYTES = 32;

export interface TileName {
  level: number;
  index: number;
}

export const tileKey = (t: TileName) => `${t.level}/${t.index}`;

/** The tile holding node (level, index), and the node's place in it. */
export const tileOfNode = (level: number, index: number) => ({
  tile: { level, index: Math.floor(index / TILE_WIDTH) },
  offset: index % TILE_WIDTH,
});

/** Tiles as bytes (32 per hash, up to 256 hashes), read synchronously once loaded. */
export class TileTree implements TreeHashes {
  constructor(
    readonly size: number,
    private readonly tiles: ReadonlyMap<string, Buffer>,
  ) {}

  perfect(level: number, index: number): Hash {
    const { tile, offset } = tileOfNode(level, index);
    const bytes = this.tiles.get(tileKey(tile));
    const start = offset * HASH_BYTES;
    if (!bytes || bytes.length < start + HASH_BYTES)
      throw new RangeError(`node ${level}/${index} is not in the tiles loaded`);
    return bytes.subarray(start, start + HASH_BYTES);
  }
}

/**
 * The tiles `compute` reads from a tree of `size` leaves: it is run once over
 * a tree that only records what it is asked (with stand-in hashes), so the
 * tiles can be fetched before it runs on the real ones.
 */
export function tilesNeeded(size: number, compute: (tree: TreeHashes) => unknown): TileName[] {
  const needed = new Map<string, TileName>();
  const stand = Buffer.alloc(HASH_BYTES);
  compute({
    size,
    perfect(level, index) {
      const { tile } = tileOfNode(level, index);
      needed.set(tileKey(tile), tile);
      return stand;
    },
  });
  return [...needed.values()];
}

/**
 * The right edge of a growing tree, in tiles: appending leaves completes
 * nodes up the levels; `drain` hands over the tiles written since the last
 * drain (whole, as they are now) for the caller to keep. Its state is the
 * last tile of each level, so it resumes from those.
 */
export class TileWriter {
  /** Each level's last tile: its index, room for 256 hashes, and how many it has. */
  private readonly edge = new Map<number, { index: number; bytes: Buffer; count: number }>();
  /** Tiles written since the last drain: those still at the edge by name, those past it as they ended. */
  private readonly written = new Map<string, TileName>();
  private readonly finished: { name: TileName; bytes: Buffer }[] = [];

  constructor(
    private leaves: number,
    /** The last tile of each level at `leaves`, as kept. */
    last: { name: TileName; bytes: Buffer }[] = [],
  ) {
    for (const t of last) {
      const bytes = Buffer.alloc(TILE_WIDTH * HASH_BYTES);
      t.bytes.copy(bytes);
      this.edge.set(t.name.level, { index: t.name.index, bytes, count: t.bytes.length / HASH_BYTES });
    }
  }

  get size(): number {
    return this.leaves;
  }

  append(leaf: Hash): void {
    let hash = leaf;
    let index = this.leaves;
    for (let level = 0; ; level++) {
      const tile = this.put(level, index, hash);
      if (index % 2 === 0) break;
      // A right child completes its parent; its left sibling is just before it, in the same tile.
      const at = (tile.count - 2) * HASH_BYTES;
      hash = nodeHash(tile.bytes.subarray(at, at + HASH_BYTES), hash);
      index = (index - 1) / 2;
    }
    this.leaves++;
  }

  /** The tiles written since the last drain, each as it is now. */
  drain(): { name: TileName; bytes: Buffer }[] {
    const out = [...this.finished];
    for (const name of this.written.values()) {
      const tile = this.edge.get(name.level)!;
      out.push({ name, bytes: Buffer.from(tile.bytes.subarray(0, tile.count * HASH_BYTES)) });
    }
    this.finished.length = 0;
    this.written.clear();
    return out;
  }

  private put(level: number, index: number, hash: Hash) {
    const { tile: name, offset } = tileOfNode(level, index);
    let tile = this.edge.get(level);
    if (offset === 0) {
      if (tile && this.written.delete(tileKey({ level, index: tile.index })))
        this.finished.push({ name: { level, index: tile.index }, bytes: Buffer.from(tile.bytes) });
      tile = { index: name.index, bytes: Buffer.alloc(TILE_WIDTH * HASH_BYTES), count: 0 };
      this.edge.set(level, tile);
    } else if (!tile || tile.index !== name.index || tile.count !== offset) {
      throw new Error(`the tiles kept of level ${level} do not end where node ${index} goes`);
    }
    hash.copy(tile.bytes, offset * HASH_BYTES);
    tile.count = offset + 1;
    this.written.set(tileKey(name), name);
    return tile;
  }
}
