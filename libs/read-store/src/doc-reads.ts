import type { Doc, Filter, ReadStore } from './read-store.port';

/**
 * The reads a feature's published queries take: from a read store (live, or
 * as it was at an instant) or from the projector during a batch (a
 * reaction's reads), so one query serves every caller.
 */
export interface DocReads {
  get(collection: string, id: string): Promise<Doc | null>;
  find(collection: string, filter: Filter): Promise<Doc[]>;
}

/** A read store's collections as `DocReads`. */
export function docReads(store: ReadStore): DocReads {
  return {
    get: (collection, id) => store.collection(collection).findOne({ _id: id }),
    find: (collection, filter) => store.collection(collection).find(filter),
  };
}
