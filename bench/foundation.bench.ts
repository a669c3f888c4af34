import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { SqliteEventStore, EventToAppend } from '#des/event-store';
import { Projector, streamStatsProjection } from '#des/projections';
import { MemoryReadStore, MongoReadStore } from '#des/read-store';
import { benchConfig } from './support/service';
import { runBenchmark, sized } from './support/run';
import { OrganizationBootstrap } from '#des/accounts';
import { createHttpApp } from '#des/service';
import { FixtureFeatureModule } from '../test/support/fixture-feature';
import { uniqueName } from '../test/support/engines';
import { describeScans, idLookupPlan, type WireServer, wireServers } from '../test/support/wire-servers';

/**
 * Foundation benchmarks (issue: event-sourced core). Prints each figure and
 * writes them all to bench/results/foundation.json.
 */
const results: Record<string, unknown> = {};
const tmp = () => mkdtempSync(join(tmpdir(), 'des-bench-'));
const perSecond = (n: number, ms: number) => Math.round((n / ms) * 1000);
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const mb = () => Math.round(process.memoryUsage().rss / 1024 / 1024);

function event(i: number): EventToAppend {
  return {
    id: randomUUID(),
    type: 'attestation_reported',
    data: { name: `test-${i}`, type: 'junit', compliant: i % 7 !== 0, url: `https://ci.example/build/${i}` },
    metadata: { org: 'acme', actor: { kind: 'service_account', name: 'ci' }, correlation_id: randomUUID() },
  };
}

/** Raw better-sqlite3 with the adapter's schema and durability (WAL, synchronous=FULL): the yardstick. */
function rawStore() {
  const raw = new Database(join(tmp(), 'raw.db'));
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = FULL');
  raw.exec(`CREATE TABLE events (position INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL UNIQUE,
    stream TEXT NOT NULL, revision INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL,
    recorded_at INTEGER NOT NULL, UNIQUE (stream, revision))`);
  const insert = raw.prepare(
    'INSERT INTO events (event_id, stream, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const append = raw.transaction((rows: EventToAppend[], stream: string) => {
    rows.forEach((e, r) =>
      insert.run(
        e.id,
        stream,
        r,
        e.type,
        JSON.stringify(e.data),
        JSON.stringify(e.metadata),
        Date.now() * 1000,
      ),
    );
  });
  return { append, close: () => raw.close() };
}

/**
 * The adapter against raw better-sqlite3, both durable (synchronous=FULL):
 * batches of 100 events, single-event appends one after another, and
 * single-event appends from 16 concurrent writers (the adapter commits those
 * in groups, one fsync per group; raw SQLite commits each alone).
 */
async function appendVsRaw(): Promise<void> {
  const scenarios = [
    { name: 'batch_100', total: sized(50_000, 2_000), perAppend: 100, writers: 1 },
    { name: 'single_sequential', total: sized(3_000, 200), perAppend: 1, writers: 1 },
    { name: 'single_16_writers', total: sized(8_000, 320), perAppend: 1, writers: 16 },
  ];
  const figures: Record<string, unknown> = {};
  for (const { name, total, perAppend, writers } of scenarios) {
    const appends = total / perAppend;
    const payloads = Array.from({ length: total }, (_, i) => event(i));
    const store = new SqliteEventStore({ path: join(tmp(), 'events.db') });
    // Warm: its writer thread started and its statements prepared (raw SQLite has neither to do).
    await store.append('warm-acme/up', [{ ...event(-1), id: `warm-${name}` }], 'no_stream');
    let next = 0;
    let t = performance.now();
    await Promise.all(
      Array.from({ length: writers }, async () => {
        for (let i = next++; i < appends; i = next++) {
          await store.append(
            `trail-acme/flow/t${i}`,
            payloads.slice(i * perAppend, (i + 1) * perAppend),
            'no_stream',
          );
        }
      }),
    );
    const adapter = perSecond(total, performance.now() - t);
    await store.close();

    const raw = rawStore();
    const fresh = Array.from({ length: total }, (_, i) => event(i));
    t = performance.now();
    for (let i = 0; i < appends; i++)
      raw.append(fresh.slice(i * perAppend, (i + 1) * perAppend), `trail-acme/flow/t${i}`);
    const rawRate = perSecond(total, performance.now() - t);
    raw.close();
    const ratio = +(adapter / rawRate).toFixed(2);
    figures[name] = {
      events: total,
      events_per_append: perAppend,
      writers,
      adapter_events_per_s: adapter,
      raw_better_sqlite3_events_per_s: rawRate,
      ratio,
    };
    console.log(
      `SQLite append (synchronous=FULL), ${name}: ${adapter} events/s vs raw better-sqlite3 ${rawRate} events/s (ratio ${ratio}${name === 'batch_100' ? ', goal >= 0.50' : ''})`,
    );
  }
  results.sqlite_append = { durability: 'WAL, synchronous=FULL', goal_ratio_batch_100: 0.5, ...figures };
}

async function seededLog(total: number): Promise<SqliteEventStore> {
  const store = new SqliteEventStore({ path: join(tmp(), 'events.db') });
  for (let i = 0; i < total; i += 100) {
    await store.append(
      `trail-acme/flow/t${i % 5000}`,
      Array.from({ length: 100 }, (_, j) => event(i + j)),
      'any',
    );
  }
  return store;
}

async function rebuilds(): Promise<void> {
  const memoryEvents = sized(200_000, 5_000);
  let events = await seededLog(memoryEvents);
  const t = performance.now();
  await new Projector(events, new MemoryReadStore(), [streamStatsProjection]).rebuild();
  const memoryRate = perSecond(memoryEvents, performance.now() - t);
  await events.close();
  console.log(
    `Projection rebuild into memory: ${memoryRate} events/s over ${memoryEvents} events (goal >= 100000)`,
  );

  // Into each MongoDB-wire server (FerretDB on each backend, side by side, when the user has no MongoDB).
  const mongoEvents = sized(20_000, 1_000);
  events = await seededLog(mongoEvents);
  const servers: Record<string, unknown> = {};
  let tested: unknown;
  for (const server of wireServers()) {
    servers[server.name] = await rebuildInto(server, events, mongoEvents);
    if (server.default) tested = servers[server.name];
  }
  await events.close();
  results.projection_rebuild = {
    memory: { events: memoryEvents, events_per_s: memoryRate, goal: 100_000 },
    // The server the tests use; every one measured beside it.
    mongodb: tested,
    mongodb_wire_servers: servers,
  };
}

/**
 * The projection rebuild into one MongoDB-wire server, and the engine's own
 * bound: the official driver alone doing the same number of upserts (bulks of
 * 50, the adapter's chunk) against the same server. Also how the server finds
 * a document by `_id` (its plan, and on PostgreSQL the scans it counted).
 */
async function rebuildInto(server: WireServer, events: SqliteEventStore, mongoEvents: number) {
  const engine = await server.start();
  try {
    const database = uniqueName('bench');
    const reads = await new MongoReadStore({ url: engine.url, database }).connect();
    let t = performance.now();
    await new Projector(events, reads, [streamStatsProjection]).rebuild();
    const mongoRate = perSecond(mongoEvents, performance.now() - t);
    await reads.close();

    const client = new MongoClient(engine.url);
    await client.connect();
    const rawDatabase = uniqueName('bench_raw');
    const raw = client.db(rawDatabase).collection<{ _id: string }>('raw');
    t = performance.now();
    for (let i = 0; i < mongoEvents; i += 50) {
      await raw.bulkWrite(
        Array.from({ length: 50 }, (_, j) => ({
          updateOne: { filter: { _id: `t${(i + j) % 5000}` }, update: { $inc: { events: 1 } }, upsert: true },
        })),
        { ordered: true },
      );
    }
    const rawMongoRate = perSecond(mongoEvents, performance.now() - t);
    const documents = await raw.countDocuments();
    await client.close();
    const plan = await idLookupPlan(engine.url, rawDatabase, 'raw', 't1');
    const scans = await engine.scans?.();
    console.log(
      `Projection rebuild into MongoDB wire (${engine.description}): ${mongoRate} events/s over ${mongoEvents} events; the driver's own bulk upserts ${rawMongoRate}/s on the same server (goal >= 50% of that: ${(mongoRate / rawMongoRate).toFixed(2)})`,
    );
    console.log(`  find by _id on ${documents} documents: ${plan}`);
    if (scans) {
      console.log(`  PostgreSQL, the rebuild: ${describeScans(scans, database)}`);
      console.log(`  PostgreSQL, the driver's upserts: ${describeScans(scans, rawDatabase)}`);
    }
    return {
      server: engine.description,
      events: mongoEvents,
      events_per_s: mongoRate,
      raw_driver_bulk_upserts_per_s: rawMongoRate,
      goal_ratio_to_raw: 0.5,
      id_lookup_plan: plan,
      ...(scans ? { postgresql_scans: { rebuild: scans[database], raw_upserts: scans[rawDatabase] } } : {}),
    };
  } finally {
    await engine.stop();
  }
}

async function writeToVisibleRead(): Promise<void> {
  const config = benchConfig(tmp());
  const app = await createHttpApp({ config, role: 'all', features: [FixtureFeatureModule] });
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as { port: number }).port;
  // Every route wants a key of the organization it names.
  const { key } = await app.get(OrganizationBootstrap).createOrganization('acme', [], 10);
  const authorization = `Bearer ${key}`;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const call = (method: string, path: string, body?: string) =>
    new Promise<{ status: number; body: string }>((resolvePromise, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method,
          path,
          agent,
          headers: body
            ? { authorization, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }
            : { authorization },
        },
        (res) => {
          let data = '';
          res.on('data', (d) => (data += d));
          res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, body: data }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const samples: number[] = [];
  const iterations = sized(2000, 100);
  for (let i = 0; i < iterations + 100; i++) {
    const t = performance.now();
    const put = await call('PUT', '/api/v2/fixture-notes/acme/bench', JSON.stringify({ text: `v${i}` }));
    const get = await call('GET', '/api/v2/fixture-notes/acme/bench');
    const elapsed = performance.now() - t;
    if (put.status !== 201 || JSON.parse(get.body).events !== i + 1)
      throw new Error(`write not visible: ${put.status} ${get.body}`);
    if (i >= 100) samples.push(elapsed);
  }
  agent.destroy();
  await app.close();
  samples.sort((a, b) => a - b);
  const p50 = +pct(samples, 50).toFixed(2);
  const p99 = +pct(samples, 99).toFixed(2);
  results.write_to_visible_read_embedded = {
    iterations,
    p50_ms: p50,
    p99_ms: p99,
    goal_p99_ms: 50,
    rss_mb: mb(),
  };
  console.log(
    `Write -> visible read (embedded, PUT then GET over HTTP): p50 ${p50} ms, p99 ${p99} ms over ${iterations} (goal p99 <= 50 ms)`,
  );
}

runBenchmark('foundation', results, async () => {
  await appendVsRaw();
  await rebuilds();
  await writeToVisibleRead();
});
