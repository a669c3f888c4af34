import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import request from 'supertest';
import fc from 'fast-check';
import { SqliteEventStore, type StoredEvent } from '#des/event-store';
import { rootsFromSubproof } from '#des/ledger/testing';
import { codeFingerprint } from '#des/platform';
import { CHECKPOINTS, CheckpointPoller, Projector } from '#des/projections';
import { loadReadModels, MemoryReadStore, MongoReadStore, type ReadStore } from '#des/read-store';
import { allProjections } from '#des/service';
import { modeEnv, type Mode } from './support/app';
import { freePort, uniqueName } from './support/engines';
import { Child, eventually, startProcess, untilLive } from './support/processes';
import { Receiver } from './support/receiver';
import { readWholeLog } from './support/log';

const STEPS = 60;
const MAX_STEPS = 3000;
const SEED = Number(process.env.DES_CHAOS_SEED ?? 20261123);
/** The processes of each mode: server mode's three roles, or embedded mode's one process (`npm start`). */
const PROCESSES = { server: ['projector', 'worker', 'api'], embedded: ['service'] } as const;
type Name = 'projector' | 'worker' | 'api' | 'service';
/** How many times each process is killed at least. */
const KILLS_EACH = { server: 2, embedded: 5 };

/**
 * Drawn by fast-check from SEED, so a failing run can be replayed with
 * DES_CHAOS_SEED: the pauses before each kill (0.3–1.5 s), and the victims,
 * each process once per round in a shuffled order.
 */
function schedule(seed: number, processes: readonly Name[]): { pause(): number; victim(): Name } {
  const pauses = fc.sample(fc.integer({ min: 300, max: 1500 }), { seed, numRuns: 1000 });
  const rounds = fc.sample(fc.shuffledSubarray([...processes], { minLength: processes.length }), {
    seed,
    numRuns: 1000,
  });
  let kill = 0;
  return {
    pause: () => pauses[kill % pauses.length],
    victim: () => rounds[Math.floor(kill / processes.length) % rounds.length][kill++ % processes.length],
  };
}

const pods = (image: number) => [
  {
    podName: `svc-${image}`,
    namespace: 'prod',
    creationTimestamp: 1_790_000_000,
    digests: { [`registry.local/svc:${image}`]: `sha256:${image.toString(16).padStart(64, '0')}` },
  },
];
const POLICY = { files: { 'policy.rego': 'package policy\nimport rego.v1\ndefault allow := true\n' } };
const collections = [...new Set(allProjections.flatMap((p) => p.collections.map((c) => c.name)))].filter(
  (c) => c !== CHECKPOINTS,
);

/**
 * The transparency log went on through the kills (the sequencer runs in the
 * killed processes): a checkpoint comes to cover every event of the
 * organization, each checkpoint kept is of a larger tree than the one before,
 * and the latest is proved consistent with every earlier one, by an
 * independent reading of RFC 9162.
 */
async function assertCheckpointsConsistent(
  base: string,
  auth: { Authorization: string },
  path: string,
  send: (call: () => request.Test) => Promise<request.Response>,
) {
  const store = new SqliteEventStore({ path });
  try {
    const get = (url: string) => send(() => request(base).get(url).set(auth));
    let log: StoredEvent[] = [];
    const { latest } = await eventually(
      async () => {
        log = await readWholeLog(store);
        const res = await get('/api/v2/ledger/acme/checkpoint');
        const events = log.filter((e) => e.metadata.org === 'acme').length;
        return { events, latest: res.status === 200 ? res.body : res.text };
      },
      ({ events, latest }) => latest?.tree_size === events,
      60_000,
    );
    const kept = log
      .filter((e) => e.type === 'ledger_checkpoint_signed' && e.data.org === 'acme')
      .map((e) => e.data as { tree_size: number; root_hash: string });
    assert.ok(kept.length >= 1);
    kept.forEach((c, i) =>
      assert.ok(i === 0 || c.tree_size > kept[i - 1].tree_size, 'checkpoints only grow'),
    );
    for (const earlier of kept.slice(0, -1)) {
      const proof = await get(`/api/v2/ledger/acme/proofs/consistency?from=${earlier.tree_size}`);
      assert.equal(proof.status, 200, proof.text);
      const b = (h: string) => Buffer.from(h, 'base64');
      const roots = rootsFromSubproof(
        earlier.tree_size,
        latest.tree_size,
        (proof.body.hashes as string[]).map(b),
        true,
        b(earlier.root_hash),
      );
      assert.deepEqual(
        [roots?.before.toString('base64'), roots?.after.toString('base64')],
        [earlier.root_hash, latest.root_hash],
        `checkpoint of ${earlier.tree_size} events`,
      );
    }
    console.log(
      `# chaos: ${kept.length} checkpoints kept through the kills, each consistent with the latest`,
    );
  } finally {
    await store.close();
  }
}

/** Every read model equals the one a full rebuild from the log makes. */
async function assertRebuildEquals(live: ReadStore, log: SqliteEventStore, rebuilt: ReadStore) {
  await new Projector(log, rebuilt, allProjections).rebuild();
  assert.ok(collections.length >= 10, collections.join(', '));
  for (const collection of collections) {
    const sort = { sort: { _id: 1 as const } };
    assert.deepEqual(
      await live.collection(collection).find({}, sort),
      await rebuilt.collection(collection).find({}, sort),
      `${collection} after the crashes equals a full rebuild`,
    );
  }
}

/**
 * The service's processes killed with SIGKILL at random moments during a
 * scripted load (K8S reports that notify an action, attestations,
 * evaluations) and started again: in server mode the projector, the worker
 * and the API in turn, in embedded mode its one process. Afterwards every
 * acknowledged write is in the log once, every evaluation and notification
 * is recorded exactly once, and the read models equal a full rebuild.
 */
for (const mode of ['server', 'embedded'] as Mode[]) {
  describe(`chaos: ${PROCESSES[mode].join(', ')} killed with SIGKILL under load (${mode} mode)`, () => {
    const receiver = new Receiver();
    const running = new Map<Name, Child>();
    /** True while the load runs; the killer stops when it is not (also when the test failed). */
    let loading = false;
    let chaos: Promise<void> | undefined;
    after(async () => {
      loading = false;
      await chaos;
      for (const child of running.values()) await child.stop();
      await receiver.close();
    });

    it('loses and doubles nothing, and its read models equal a full rebuild', async () => {
      const webhook = await receiver.start();
      const port = await freePort();
      const env = await modeEnv(mode, {
        PORT: String(port),
        HOST: '127.0.0.1',
        DES_ORG: 'acme',
        DES_PROJECTOR_LEASE_MS: '1000',
        DES_JOB_LOCK_MS: '1000',
        DES_ACTIONS_ALLOW_PRIVATE_TARGETS: 'true',
        DES_ACTIONS_BACKOFF_MS: '50',
        // Embedded: read models saved often, so restarts load saved read models cut short by a kill.
        DES_READ_MODELS_SAVE_MS: '300',
        // A key claimed by a request the SIGKILL cut short is taken over after 3 s (default 2 min).
        DES_IDEMPOTENCY_CLAIM_TIMEOUT_MS: '3000',
      });
      const base = `http://127.0.0.1:${port}`;
      const start = async (name: Name) => {
        const app = name === 'service' ? 'api' : name;
        running.set(name, startProcess(app, env, name === 'api' ? ['--role=api'] : []));
        if (name === 'api' || name === 'service') await untilLive(running.get(name)!, base);
      };
      for (const name of PROCESSES[mode]) await start(name);
      const front = running.get(mode === 'server' ? 'api' : 'service')!;
      const key = front.output().match(/des_[A-Za-z0-9_-]{32}/)![0];
      const auth = { Authorization: `Bearer ${key}` };

      /**
       * Sent until it is answered with neither a 5xx nor a 409 (a dead API refuses connections, a
       * restarting one may answer 503, and a key whose first request died stays claimed a while).
       */
      const send = async (call: () => request.Test): Promise<request.Response> => {
        const res = await eventually(
          () =>
            call().then(
              (r) => r,
              () => undefined,
            ),
          (r) => r !== undefined && r.status < 500 && r.status !== 409,
          60_000,
        );
        return res!;
      };
      const put = (path: string, body: object, key_?: string) =>
        send(() => {
          const r = request(base).put(path).set(auth);
          return (key_ ? r.set('Idempotency-Key', key_) : r).send(body);
        });
      const post = (path: string, body: object, key_: string) =>
        send(() => request(base).post(path).set(auth).set('Idempotency-Key', key_).send(body));

      assert.equal((await put('/api/v2/flows/acme', { name: 'shop' })).status, 201);
      assert.equal((await put('/api/v2/trails/acme/shop', { name: 't1' })).status, 201);
      assert.equal((await put('/api/v2/environments/acme', { name: 'prod', type: 'K8S' })).status, 201);
      const action = await put('/api/v2/actions/acme/environments', {
        name: 'starts',
        environments: ['prod'],
        triggers: ['ON_STARTED_ARTIFACT'],
        targets: [{ type: 'WEBHOOK', webhook: `${webhook}/hook` }],
      });
      assert.equal(action.status, 201, action.text);

      // Chaos: while the load runs, SIGKILL a process at a random moment, then start it again.
      const plan = schedule(SEED, PROCESSES[mode]);
      const kills: Name[] = [];
      loading = true;
      chaos = (async () => {
        while (loading) {
          await new Promise((r) => setTimeout(r, plan.pause()));
          if (!loading) break;
          const name = plan.victim();
          running.get(name)!.process.kill('SIGKILL');
          await running.get(name)!.exited;
          kills.push(name);
          await start(name);
        }
      })();

      const evaluations: string[] = [];
      let reports = 0;
      const attestations: string[] = [];
      // At least STEPS writes, and on until each process was killed enough (embedded writes are quick).
      const killedEnough = () =>
        PROCESSES[mode].every((name) => kills.filter((k) => k === name).length >= KILLS_EACH[mode]);
      let steps = 0;
      for (let i = 0; (i < STEPS || !killedEnough()) && i < MAX_STEPS; i++, steps++) {
        if (i % 3 === 0) {
          const res = await put(
            '/api/v2/environments/acme/prod/report/K8S',
            { artifacts: pods(i) },
            `report-${i}`,
          );
          assert.equal(res.status, 201, res.text);
          reports++;
        } else if (i % 3 === 1) {
          const res = await post(
            '/api/v2/attestations/acme/shop/trail/t1/generic',
            { attestation_name: `check-${i}` },
            `attest-${i}`,
          );
          assert.equal(res.status, 201, res.text);
          attestations.push(`check-${i}`);
        } else {
          const res = await post(
            '/api/v2/evaluations/acme',
            { context: { trails: [{ flow: 'shop', trail: 't1' }] }, policy: POLICY },
            `evaluate-${i}`,
          );
          assert.equal(res.status, 201, res.text);
          evaluations.push(res.body.id);
        }
      }
      loading = false;
      await chaos;
      console.log(
        `# chaos (${mode}): ${steps} writes acknowledged under ${kills.length} SIGKILLs (${kills.join(', ')}), seed ${SEED}`,
      );
      assert.ok(killedEnough(), `each process killed ${KILLS_EACH[mode]} times: ${kills.join()}`);

      // Every evaluation completes; every report's started artifact is delivered.
      for (const id of evaluations) {
        const done = await eventually(
          () => send(() => request(base).get(`/api/v2/evaluations/acme/${id}`).set(auth)),
          (r) => r.body.status === 'completed',
          60_000,
        );
        assert.equal(done.body.result.allow, true);
      }
      // Delivered at least once over HTTP (a worker killed after sending sends again); recorded once.
      await eventually(
        async () => new Set(receiver.received.map((r) => r.headers['x-des-delivery'])).size,
        (n) => n >= reports,
        60_000,
      );
      const trail = await send(() => request(base).get('/api/v2/trails/acme/shop/t1').set(auth));
      assert.deepEqual(Object.keys(trail.body.attestations).sort(), [...attestations].sort());
      await assertCheckpointsConsistent(base, auth, join(env.DES_DATA_DIR!, 'events.db'), send);

      const events = new SqliteEventStore({ path: join(env.DES_DATA_DIR!, 'events.db') });
      let live: ReadStore | undefined;
      let rebuilt: ReadStore | undefined;
      // Closed whatever fails: the log's writer thread would keep the test's process alive.
      try {
        if (mode === 'server') {
          // No more writes but the projector's; it catches up with the log's head, then stops too.
          await running.get('api')!.stop();
          await running.get('worker')!.stop();
          live = await new MongoReadStore({
            url: env.MONGODB_URL!,
            database: env.MONGODB_DATABASE!,
          }).connect();
          const poller = new CheckpointPoller(
            live,
            allProjections.map((p) => p.name),
          );
          await eventually(
            async () => (await poller.appliedPosition()) - (await events.head()).position,
            (behind) => behind >= 0,
            60_000,
          );
          await running.get('projector')!.stop();
          rebuilt = await new MongoReadStore({
            url: env.MONGODB_URL!,
            database: uniqueName('chaos-rebuilt'),
          }).connect();
        } else {
          // The read models the last process served, as it saved them when stopped.
          await running.get('service')!.stop();
          const saved = new MemoryReadStore();
          const outcome = await loadReadModels(
            join(env.DES_DATA_DIR!, 'read-models.bin'),
            saved,
            codeFingerprint(),
          );
          assert.ok(outcome.loaded, JSON.stringify(outcome));
          assert.equal(outcome.meta.position, (await events.head()).position, 'saved up to the log head');
          live = saved;
          rebuilt = new MemoryReadStore();
        }

        // The log: every acknowledged write once, every job's outcome once.
        const log: StoredEvent[] = await readWholeLog(events);
        const count = (type: string) => log.filter((e) => e.type === type).length;
        // Requests whose first attempt died unanswered, and of those, the ones whose write the retry resumed.
        const claims = new Map<string, string[]>();
        for (const e of log.filter((e) => e.type === 'idempotency_key_claimed'))
          claims.set(e.stream, [...(claims.get(e.stream) ?? []), e.data.claim_id as string]);
        const retried = [...claims.values()].filter((ids) => ids.length > 1);
        const writers = new Set(
          log.flatMap((e) => {
            const tag = e.metadata.idempotency as { claim: string } | undefined;
            return tag ? [tag.claim] : [];
          }),
        );
        const resumed = retried.filter((ids) => ids.slice(0, -1).some((id) => writers.has(id)));
        console.log(
          `# chaos (${mode}): ${retried.length} requests retried after their attempt died, ${resumed.length} resumed a write it had made`,
        );
        // What the worker and the projector's reactions record is never tagged as a request's write.
        assert.deepEqual(
          log
            .filter((e) => e.metadata.idempotency !== undefined)
            .filter(
              (e) => e.type.startsWith('notification_') || /^evaluation_(completed|failed)$/.test(e.type),
            )
            .map((e) => e.type),
          [],
        );
        assert.equal(count('snapshot_created'), reports);
        assert.equal(count('attestation_reported'), attestations.length);
        assert.equal(count('evaluation_requested'), evaluations.length);
        const outcomes = new Map<string, number>();
        for (const e of log.filter(
          (e) => e.stream.startsWith('evaluation-') && /^evaluation_(completed|failed)$/.test(e.type),
        ))
          outcomes.set(e.stream, (outcomes.get(e.stream) ?? 0) + 1);
        assert.equal(outcomes.size, evaluations.length);
        for (const [stream, n] of outcomes) assert.equal(n, 1, `${stream} recorded ${n} outcomes`);
        const delivered = new Map<string, number>();
        for (const e of log.filter((e) => e.type === 'notification_delivered'))
          delivered.set(e.stream, (delivered.get(e.stream) ?? 0) + 1);
        assert.equal(delivered.size, count('notification_scheduled'));
        for (const [stream, n] of delivered) assert.equal(n, 1, `${stream} delivered ${n} times`);

        // The read models the killed processes left equal a rebuild from the log.
        await assertRebuildEquals(live, events, rebuilt);
      } finally {
        await events.close();
        await live?.close();
        await rebuilt?.close();
      }
    });
  });
}
