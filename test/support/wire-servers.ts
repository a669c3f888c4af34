import { type Document, MongoClient } from 'mongodb';
import {
  type Engine,
  type FerretPostgres,
  type ScanCounts,
  ferretBackend,
  ownMongo,
  startFerretPostgres,
  startFerretSqlite,
  startMongo,
} from './engines';

/** A MongoDB-wire server a benchmark measures: `default` is the one the tests use. */
export interface WireServer {
  name: string;
  default: boolean;
  start(): Promise<Engine & Partial<Pick<FerretPostgres, 'scans'>>>;
}

/**
 * The MongoDB-wire servers measured side by side: MONGODB_URL or a mongod
 * alone when there is one; else FerretDB on each backend: SQLite, PostgreSQL
 * as FerretDB sets it up, and PostgreSQL with the `_id` index the test harness
 * adds (`startFerretPostgres`).
 */
export function wireServers(): WireServer[] {
  if (ownMongo()) return [{ name: 'mongodb', default: true, start: () => startMongo() }];
  const backend = ferretBackend();
  return [
    { name: 'ferretdb_sqlite', default: backend === 'sqlite', start: () => startFerretSqlite() },
    {
      name: 'ferretdb_postgresql_stock',
      default: false,
      start: () => startFerretPostgres(undefined, { idIndex: false }),
    },
    { name: 'ferretdb_postgresql', default: backend === 'postgresql', start: () => startFerretPostgres() },
  ];
}

/**
 * How the server finds one document by `_id` (the lookup every update and
 * upsert by `_id` starts with): its own query plan for `find({_id})`, in short;
 * with `beside`, for `_id` and those keys (a projection's position-guarded write).
 */
export async function idLookupPlan(
  url: string,
  database: string,
  collection: string,
  id: unknown,
  beside: Document = {},
): Promise<string> {
  const client = new MongoClient(url);
  try {
    await client.connect();
    const explained = await client
      .db(database)
      .collection(collection)
      .find({ _id: id, ...beside } as Document)
      .explain();
    return summarizePlan(explained.queryPlanner?.Plan ?? explained.queryPlanner?.winningPlan);
  } finally {
    await client.close();
  }
}

function summarizePlan(plan: unknown): string {
  if (Array.isArray(plan)) return plan.map((step) => String(step).replace(/^.*detail=/, '')).join('; '); // SQLite
  if (plan && typeof plan === 'object') {
    const node = plan as Record<string, unknown>;
    if (typeof node['Node Type'] === 'string') {
      // PostgreSQL
      const here = [
        node['Node Type'],
        node['Index Name'] && `on ${node['Index Name']}`,
        node['Filter'] && `filter ${node['Filter']}`,
      ]
        .filter(Boolean)
        .join(' ');
      const below = ((node['Plans'] as unknown[]) ?? []).map(summarizePlan);
      return [here, ...below].join(' <- ');
    }
    if (typeof node['stage'] === 'string') {
      // MongoDB
      return [node['stage'], node['indexName'], node['inputStage'] && summarizePlan(node['inputStage'])]
        .filter(Boolean)
        .join(' <- ');
    }
  }
  return JSON.stringify(plan);
}

/** Scan counts of one database, as a line. */
export function describeScans(scans: ScanCounts | undefined, database: string): string {
  const s = scans?.[database];
  if (!s) return 'no PostgreSQL scan counts';
  return `${s.seq_scans} sequential scans (${s.seq_rows_read} rows read), ${s.index_scans} index scans`;
}
