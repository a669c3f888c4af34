import { canonicalTextOf } from '#des/event-store';
import {
  consistencyProof,
  inclusionProof,
  leafHash,
  rootAt,
  tileKey,
  tilesNeeded,
  TileTree,
  TileWriter,
  type TreeHashes,
  verifyInclusion,
} from '#des/ledger';
import { percentile } from './support/http-client';
import { runBenchmark, sized } from './support/run';

/**
 * The transparency log's tree (issue 32), its own speed: extending an
 * organization's tree by canonical event texts (leaf hashes and the tiles
 * they complete), and proofs at 1M events from tiles loaded by name (as a
 * reader fetches them). The sequencer and the endpoints are not wired yet:
 * these are the tree's figures, not the service's. Goals: extension
 * ≥ 50k events/s, inclusion proof p50 ≤ 2 ms at 1M events.
 */
const results: Record<string, unknown> = {};

runBenchmark('ledger', results, async () => {
  const events = sized(1_000_000, 50_000);
  const texts = Array.from({ length: 1000 }, (_, i) =>
    canonicalTextOf({
      stream: `env-acme/prod`,
      type: 'snapshot_created',
      data: { index: i, artifacts: [{ fingerprint: i.toString(16).padStart(64, '0'), instances: 3 }] },
      metadata: { org: 'acme', actor: 'ci' },
      recordedAt: 1_795_459_433_000_016 + i,
    }),
  );
  const store = new Map<string, Buffer>();
  const writer = new TileWriter(0);
  const start = performance.now();
  for (let i = 0; i < events; i++) {
    writer.append(leafHash(texts[i % texts.length]));
    // Tiles handed over every 500 events, as a projector batch would keep them.
    if (i % 500 === 499) for (const t of writer.drain()) store.set(tileKey(t.name), t.bytes);
  }
  for (const t of writer.drain()) store.set(tileKey(t.name), t.bytes);
  const perSecond = events / ((performance.now() - start) / 1000);
  const ok = perSecond >= 50_000;
  console.log(
    `tree extension: ${Math.round(perSecond)} events/s over ${events} events (goal >= 50000) ${ok ? '✓' : '✗'}`,
  );
  results.extension = { events, per_second: Math.round(perSecond), goal_per_second: 50_000 };

  const tree = new TileTree(events, store);
  const root = rootAt(tree, events);
  const samples: number[] = [];
  const tileCounts: number[] = [];
  for (let run = 0; run < 200; run++) {
    const index = Math.floor((run * 7919 * 104729) % events);
    const t = performance.now();
    const proof = (hashes: TreeHashes) => inclusionProof(hashes, index, events);
    const needed = tilesNeeded(events, proof);
    const loaded = new Map(needed.map((n) => [tileKey(n), store.get(tileKey(n))!]));
    const path = proof(new TileTree(events, loaded));
    samples.push(performance.now() - t);
    tileCounts.push(needed.length);
    if (!verifyInclusion(leafHash(texts[index % texts.length]), index, events, path, root))
      throw new Error(`the proof of ${index} does not verify`);
  }
  const p50 = percentile(samples, 50);
  console.log(
    `inclusion proof at ${events} events, from tiles: p50 ${p50.toFixed(3)} ms, ${Math.max(...tileCounts)} tiles at most (goal <= 2 ms) ${p50 <= 2 ? '✓' : '✗'}`,
  );
  results.inclusion_proof = {
    events,
    p50_ms: Number(p50.toFixed(3)),
    goal_p50_ms: 2,
    tiles_max: Math.max(...tileCounts),
  };
  const t = performance.now();
  consistencyProof(tree, Math.floor(events / 3), events);
  results.consistency_proof_ms = Number((performance.now() - t).toFixed(3));
});
