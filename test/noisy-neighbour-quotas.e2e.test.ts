// des-test: alone (it measures another organization's latency or the event loop's delay: nothing may run beside it)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { EventStore } from '#des/event-store';
import { EVENT_STORE, TenantSources, type Config } from '#des/platform';
import { trailStream } from '#des/trails';
import { assertUnharmed, Neighbourhood, startNeighbourhood, watchNeighbour } from './support/noisy-neighbour';
import { AttackClient } from './support/attack-client';
import { APPS, eventually } from './support/processes';

const METRICS_TOKEN = 'scraper-token-of-the-quotas-test';

const MiB = 1024 * 1024;
const QUOTA = 8 * MiB;
/** An attestation of about 1 MB: under the event store's 1 MiB append limit. */
const bigAttestation = (i: number) => ({
  attestation_name: `blob-${i}`,
  user_data: { blob: 'x'.repeat(900_000) },
});
const json = { 'Content-Type': 'application/json' };

for (const mode of ['embedded', 'server'] as const) {
  describe(`noisy neighbour: quotas and write rate (${mode})`, () => {
    let n: Neighbourhood;
    const A = () => `/api/v2/attestations/${n.t.org}/flow/trail/t/generic`;
    const B = () => `/api/v2/attestations/${n.orgB}/flow/trail/t/generic`;
    const post = (as: Neighbourhood['asA'], path: string, body: unknown) =>
      as(path, { method: 'POST', headers: json, body: JSON.stringify(body) });
    /** What the log holds (the read models may lag a write answered after their wait timed out). */
    const logged = async (prefix: string) =>
      (await n.t.app.get<EventStore>(EVENT_STORE).readStreamsByPrefix(prefix)).length;
    const eventCount = (_as: unknown, org: string) => logged(trailStream(org, 'flow', 't'));
    const usageOfA = () => n.t.app.get(TenantSources).usageOf(n.t.org);

    before(async () => {
      n = await startNeighbourhood(mode, {
        DES_ORG_EVENT_LOG_BYTES: String(QUOTA),
        DES_METRICS_TOKEN: METRICS_TOKEN,
      });
      for (const [as, org] of [
        [n.asA, n.t.org],
        [n.asB, n.orgB],
      ] as const) {
        const put = (path: string, body: unknown) =>
          as(path, { method: 'PUT', headers: json, body: JSON.stringify(body) });
        assert.equal((await put(`/api/v2/flows/${org}`, { name: 'flow' })).status, 201);
        assert.equal((await put(`/api/v2/trails/${org}/flow`, { name: 't' })).status, 201);
        // Warm: the first attestation compiles its type's schema.
        const warm = await as(`/api/v2/attestations/${org}/flow/trail/t/generic`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ attestation_name: 'warm' }),
        });
        assert.equal(warm.status, 201);
      }
    });
    const client = new AttackClient();
    after(async () => {
      await client.close();
      await n?.close();
    });

    it('A floods small writes past its bucket: 429 with Retry-After, nothing written for them; B’s writes are all accepted', async () => {
      try {
        await cli(n.t.config, ['org', 'limits', n.t.org, '--writes-per-second', '5', '--write-burst', '10']);
        await eventually(
          () => n.t.app.get(TenantSources).limitsFor(n.t.org),
          (limits) => limits.writesPerSecond === 5 && limits.writeBurst === 10,
        );
        const flooded = () => logged(`trail-${n.t.org}/flow/f-`);
        const before = await flooded();
        const watch = watchNeighbour(n, `/api/v2/trails/${n.orgB}/flow/t`);
        const flood = async () => {
          const answers: Response[] = [];
          for (let round = 0; round < 30; round++) {
            answers.push(
              ...(await Promise.all(
                Array.from({ length: 10 }, (_, i) =>
                  n.asA(`/api/v2/trails/${n.t.org}/flow`, {
                    method: 'PUT',
                    headers: json,
                    body: JSON.stringify({ name: `f-${round}-${i}` }),
                  }),
                ),
              )),
            );
          }
          return answers;
        };
        const neighbour = async () => {
          const statuses: number[] = [];
          for (let i = 0; i < 20; i++)
            statuses.push((await post(n.asB, B(), { attestation_name: `calm-${i}` })).status);
          return statuses;
        };
        const [answers, bStatuses] = await Promise.all([flood(), neighbour()]);
        const refused = answers.filter((r) => r.status === 429);
        const accepted = answers.filter((r) => r.status === 201);
        assert.deepEqual(
          answers.filter((r) => r.status !== 201 && r.status !== 429).map((r) => r.status),
          [],
          'every answer is 201 or 429',
        );
        assert.ok(refused.length > 100, `${refused.length} of ${answers.length} refused`);
        const retryAfter = Number(refused[0].headers.get('retry-after'));
        assert.ok(
          Number.isInteger(retryAfter) && retryAfter >= 1,
          `Retry-After ${refused[0].headers.get('retry-after')}`,
        );
        const body = (await refused[0].json()) as { message: string; errors: Record<string, string> };
        assert.match(
          body.message,
          /^Too many requests: this organization may write 5 times per second \(bursts of 10\); retry after \d+ s$/,
        );
        assert.deepEqual(Object.keys(body.errors), ['writesPerSecond']);
        assert.equal(await flooded(), before + accepted.length, 'a refused write writes nothing');
        assert.deepEqual(bStatuses, Array(20).fill(201));
        assertUnharmed('flood of small writes past the write bucket', await watch.stop());
      } finally {
        // The default rate again, whatever the flood showed, for the attacks after it.
        await cli(n.t.config, [
          'org',
          'limits',
          n.t.org,
          '--reset',
          'writes-per-second',
          '--reset',
          'write-burst',
        ]);
        await eventually(
          () => n.t.app.get(TenantSources).limitsFor(n.t.org),
          (limits) => limits.writesPerSecond === n.t.config.tenantLimits.writesPerSecond,
        );
      }
    });

    it('A writes ~1 MB attestations: 201 up to its event-log quota, then 507 and nothing written; B is unharmed', async () => {
      // A's client on a thread of its own, its bodies made before B watches: from another machine,
      // building and sending them would cost the service nothing.
      const bodies = Array.from({ length: 44 }, (_, i) => Buffer.from(JSON.stringify(bigAttestation(i))));
      const sendAsA = (i: number) => client.json(n.baseUrl, A(), n.t.key, bodies[i], 'POST');
      const watch = watchNeighbour(n, `/api/v2/trails/${n.orgB}/flow/t`);
      let accepted = 0;
      let refusal: { status: number; body: unknown } | undefined;
      for (let i = 0; i < 40 && !refusal; i++) {
        const res = await sendAsA(i);
        if (res.status === 201) accepted++;
        else refusal = res;
      }
      assert.ok(refusal, 'A was never refused');
      assert.equal(refusal.status, 507);
      // Each is 900,000 bytes of data and its envelope: fewer than QUOTA / 900,000 fit, not many fewer.
      assert.ok(
        accepted <= QUOTA / 900_000 && accepted >= QUOTA / 1_000_000 - 1,
        `${accepted} of ~1 MB fit in ${QUOTA / MiB} MiB`,
      );
      assert.deepEqual((await sendAsA(40)).body, {
        message: `Storage quota exceeded: this organization's event log may hold ${QUOTA} bytes`,
        errors: { eventLogBytes: `quota of ${QUOTA} bytes reached` },
      });
      const countAtQuota = await eventCount(n.asA, n.t.org);
      for (let i = 41; i < 44; i++) assert.equal((await sendAsA(i)).status, 507);
      // A small write that still fits is taken: the quota refuses what would pass it, not everything.
      assert.equal((await post(n.asA, A(), { attestation_name: 'small' })).status, 201);
      assert.equal(await eventCount(n.asA, n.t.org), countAtQuota + 1, 'nothing refused was written');
      assert.ok((await usageOfA()).eventLogBytes <= QUOTA);

      // B writes and reads normally: its own usage is far from its quota.
      const bBefore = await eventCount(n.asB, n.orgB);
      for (let i = 0; i < 5; i++)
        assert.equal((await post(n.asB, B(), { attestation_name: `b-${i}` })).status, 201);
      assert.equal(await eventCount(n.asB, n.orgB), bBefore + 5);
      assertUnharmed(`1 MB attestations up to the event-log quota, ${mode}`, await watch.stop());
    });

    it('an operator raises A’s quota with the CLI and the running service takes it from the log', async () => {
      const printed = await cli(n.t.config, [
        'org',
        'limits',
        n.t.org,
        '--event-log-bytes',
        String(2 * QUOTA),
      ]);
      assert.match(
        printed,
        new RegExp(
          `eventLogBytes\\s+${2 * QUOTA}\\s+overridden \\(default ${QUOTA} from DES_ORG_EVENT_LOG_BYTES\\)`,
        ),
      );
      assert.match(printed, /writesPerSecond\s+\d+\s+default \(DES_ORG_WRITES_PER_SECOND\)/);
      const accepted = await eventually(
        () => post(n.asA, A(), bigAttestation(200)).then((r) => r.status),
        (status) => status === 201,
      );
      assert.equal(accepted, 201);
    });

    it('shows each organization’s usage and A’s refusals in /metrics; --reset all restores the defaults', async () => {
      // The per-organization series go only to the scraper's token (ADR 0037).
      const metrics = await (
        await fetch(`${n.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })
      ).text();
      const value = (name: string, ...labels: string[]) => {
        const line = metrics
          .split('\n')
          .find((l) => l.startsWith(`${name}{`) && labels.every((label) => l.includes(label)));
        return Number(line?.split(' ').at(-1));
      };
      const usedByA = (await usageOfA()).eventLogBytes;
      assert.ok(usedByA > QUOTA, `A used ${usedByA} bytes after its quota was raised`);
      assert.equal(value('des_tenant_event_log_bytes', `org="${n.t.org}"`), usedByA);
      assert.ok(value('des_tenant_event_log_bytes', `org="${n.orgB}"`) > 0);
      assert.equal(value('des_tenant_attachment_bytes', `org="${n.t.org}"`), 0);
      assert.ok(value('des_tenant_refusals_total', `org="${n.t.org}"`, 'limit="eventLogBytes"') >= 4);
      assert.ok(value('des_tenant_refusals_total', `org="${n.t.org}"`, 'limit="writesPerSecond"') > 100);

      const reset = await cli(n.t.config, ['org', 'limits', n.t.org, '--reset', 'all']);
      assert.doesNotMatch(reset, /overridden/);
      await eventually(
        () => post(n.asA, A(), bigAttestation(300)).then((r) => r.status),
        (status) => status === 507,
      );
    });
  });
}

/** Runs the real CLI against the app's stores (without blocking this process, which serves meanwhile); its output. */
async function cli(config: Config, args: string[]): Promise<string> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DES_DATA_DIR: config.dataDir,
    MONGODB_URL: '',
    REDIS_URL: '',
  };
  if (config.eventStore.kind === 'sqlite') env.EVENT_STORE_URL = `sqlite:${config.eventStore.path}`;
  if (config.readStore.kind === 'mongodb') {
    env.MONGODB_URL = config.readStore.url;
    env.MONGODB_DATABASE = config.readStore.database;
  }
  env.DES_ORG_EVENT_LOG_BYTES = String(config.tenantLimits.eventLogBytes);
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
    (resolve) => {
      const child = spawn(process.execPath, [join(APPS, 'cli/src/main.js'), ...args], { env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    },
  );
  assert.equal(code, 0, stderr);
  return stdout;
}
