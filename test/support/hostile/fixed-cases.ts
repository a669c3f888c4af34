import { connect, Socket } from 'node:net';
import { request as httpRequest } from 'node:http';

/**
 * The attacks of issue 49's table, as named cases run by the attacker's
 * thread against the attacker's own seeded data. Sizes are scaled down by
 * default (DES_HOSTILE_FULL=1: the issue's sizes); `scaledFrom` says which.
 */
export interface FixedContext {
  baseUrl: string;
  key: string;
  org: string;
  flow: string;
  trail: string;
  env: string;
  /** SHA-256 of attachments on the big trail. */
  attachments: string[];
  /** A prefix that every seeded artifact's fingerprint starts with. */
  artifactPrefix: string;
  full: boolean;
  idleConnections: number;
}

export interface FixedOutcome {
  /** Set when the attack itself could not run as meant (not a goal missed: those the probe judges). */
  error?: string;
  figures: Record<string, number | string>;
}

export interface FixedCase {
  /** What the issue's table names, and the size run here. */
  describe(full: boolean): string;
  /** The part of issue 49 that fixed it (its ADR names the part: strangers 0037, yaml 0038, evaluations 0039, reports 0040, streaming 0041). */
  fixedBy: string;
  run(ctx: FixedContext, started: (label: string) => void): Promise<FixedOutcome>;
}

const seconds = (s: number) => new Promise((r) => setTimeout(r, s * 1000));

function counter(): { add(status: number | string): void; figures: Record<string, number> } {
  const figures: Record<string, number> = {};
  return { add: (s) => (figures[`status ${s}`] = (figures[`status ${s}`] ?? 0) + 1), figures };
}

async function call(
  ctx: FixedContext,
  method: string,
  path: string,
  init: { body?: string | FormData; accept?: string; json?: boolean; timeoutMs?: number } = {},
): Promise<{ status: number | string; bytes: number; text: string }> {
  const headers: Record<string, string> = { Authorization: `Bearer ${ctx.key}` };
  if (init.json) headers['Content-Type'] = 'application/json';
  if (init.accept) headers.Accept = init.accept;
  try {
    const res = await fetch(`${ctx.baseUrl}${path}`, {
      method,
      headers,
      body: init.body,
      signal: AbortSignal.timeout(init.timeoutMs ?? 120_000),
    });
    const buffer = Buffer.from(await res.arrayBuffer());
    const text =
      res.status >= 400
        ? buffer.subarray(0, 300).toString()
        : buffer.length < 65_536
          ? buffer.toString()
          : '';
    return { status: res.status, bytes: buffer.length, text };
  } catch (error) {
    return { status: `error ${(error as Error).message}`, bytes: 0, text: '' };
  }
}

const ALL_ATTESTATIONS =
  'package policy\nimport rego.v1\ndefault allow := false\nallow if count([a | some t in input.trails; some a in t.attestations]) > 0\n';

function yamlUpload(
  ctx: FixedContext,
  route: 'policy' | 'template',
  yaml: string,
  name: string,
): Promise<{ status: number | string; text: string }> {
  const form = new FormData();
  if (route === 'policy') {
    form.append('payload', JSON.stringify({ name, type: 'env' }));
    form.append('policy_file.0', new Blob([yaml]), 'policy.yml');
    return call(ctx, 'PUT', `/api/v2/policies/${ctx.org}`, { body: form });
  }
  form.append('data_json', JSON.stringify({ name }));
  form.append('template_file', new Blob([yaml]), 'template.yml');
  return call(ctx, 'PUT', `/api/v2/flows/${ctx.org}/template_file`, { body: form });
}

async function yamlCase(
  ctx: FixedContext,
  started: (l: string) => void,
  name: string,
  yaml: string,
): Promise<FixedOutcome> {
  const figures: Record<string, string | number> = { bytes: yaml.length };
  for (const route of ['policy', 'template'] as const) {
    started(`${name} → ${route}`);
    const answers = await Promise.all(
      [1, 2].map((i) => yamlUpload(ctx, route, yaml, `${name.replace(/\W+/g, '-')}-${i}`)),
    );
    figures[route] = answers.map((a) => `${a.status}${a.text ? ` ${a.text.slice(0, 120)}` : ''}`).join('; ');
  }
  return { figures };
}

const hex = (n: number, width = 64) => n.toString(16).padStart(width, '0');

const pod = (i: number, digests: Record<string, string>) => ({
  podName: `pod-${i}`,
  namespace: 'hostile',
  creationTimestamp: 1_790_000_000,
  digests,
});

/** Sockets opened and held by a case, closed at its end whatever happens. */
async function holding<T>(sockets: Socket[], run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } finally {
    for (const s of sockets) s.destroy();
  }
}

function openSocket(baseUrl: string): Promise<Socket | undefined> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    const s = connect(Number(url.port), url.hostname);
    s.once('connect', () => resolve(s));
    s.once('error', () => resolve(undefined));
    s.setTimeout(30_000, () => resolve(undefined));
  });
}

export const FIXED_CASES: Record<string, FixedCase> = {
  'evaluation of a 51 MB trail ×6': {
    describe: (full) => `6 evaluations at once of the big trail (${full ? '51 MB' : 'scaled: ~10 MB'})`,
    fixedBy: 'evaluations',
    async run(ctx, started) {
      started('6 × POST /evaluations over the big trail');
      const c = counter();
      const body = JSON.stringify({
        context: { trails: [{ flow: ctx.flow, trail: ctx.trail }] },
        policy: { files: { 'policy.rego': ALL_ATTESTATIONS } },
      });
      const made = await Promise.all(
        Array.from({ length: 6 }, async () => {
          const res = await fetch(`${ctx.baseUrl}/api/v2/evaluations/${ctx.org}`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${ctx.key}`, 'Content-Type': 'application/json' },
            body,
          }).catch(() => undefined);
          const answer = res ? ((await res.json().catch(() => ({}))) as { id?: string }) : {};
          return { status: res?.status ?? 'reset', id: answer.id };
        }),
      );
      made.forEach((m) => c.add(m.status));
      started('waiting for the 6 evaluations');
      // Judged until they end: their run is the attack.
      const ends: Record<string, number> = {};
      for (const { id } of made.filter((m) => m.id)) {
        let end = 'unfinished after 180 s';
        for (const deadline = Date.now() + 180_000; Date.now() < deadline;) {
          const got = await call(ctx, 'GET', `/api/v2/evaluations/${ctx.org}/${id}`, { timeoutMs: 30_000 });
          const status =
            got.status === 200
              ? (JSON.parse(got.text || '{}') as { status?: string }).status
              : `HTTP ${got.status}`;
          if (status && status !== 'pending' && status !== 'running') {
            end = status;
            break;
          }
          await seconds(0.5);
        }
        ends[end] = (ends[end] ?? 0) + 1;
      }
      return {
        figures: {
          ...c.figures,
          ...Object.fromEntries(Object.entries(ends).map(([k, n]) => [`ended ${k}`, n])),
        },
      };
    },
  },
  '1,000 nested YAML sequences': {
    describe: () => 'a policy and a flow template of 1,000 nested block sequences (`- - - … x`)',
    fixedBy: 'yaml',
    run: (ctx, started) => yamlCase(ctx, started, 'nested-sequences', `${'- '.repeat(1000)}x\n`),
  },
  'complex keys `? ? … x`': {
    describe: () => 'a policy and a flow template of 1,000 nested complex keys (`? ? … x`)',
    fixedBy: 'yaml',
    run: (ctx, started) => yamlCase(ctx, started, 'complex-keys', `${'? '.repeat(1000)}x\n`),
  },
  '100,000-digest pod': {
    describe: () => 'one K8S report whose one pod has 100,000 digests',
    fixedBy: 'reports',
    async run(ctx, started) {
      started('PUT report/K8S, 1 pod × 100,000 digests');
      const digests: Record<string, string> = {};
      for (let i = 0; i < 100_000; i++) digests[`i${i}`] = `sha256:${hex(i)}`;
      const body = JSON.stringify({ artifacts: [pod(0, digests)] });
      const answer = await call(ctx, 'PUT', `/api/v2/environments/${ctx.org}/${ctx.env}/report/K8S`, {
        body,
        json: true,
      });
      return { figures: { bytes: body.length, status: answer.status, answer: answer.text.slice(0, 160) } };
    },
  },
  '20,000-pod report loop': {
    describe: (full) => `2 clients looping 20,000-pod K8S reports (${full ? '10 each' : 'scaled: 3 each'})`,
    fixedBy: 'reports',
    async run(ctx, started) {
      const c = counter();
      const loops = ctx.full ? 10 : 3;
      await Promise.all(
        [0, 1].map(async (client) => {
          for (let n = 0; n < loops; n++) {
            started(`client ${client} report ${n}`);
            const body = JSON.stringify({
              artifacts: Array.from({ length: 20_000 }, (_, i) =>
                pod(i, { [`ghcr.io/h/p${i}:1`]: `sha256:${hex(client * 1e6 + n * 1e5 + i)}` }),
              ),
            });
            c.add(
              (
                await call(ctx, 'PUT', `/api/v2/environments/${ctx.org}/${ctx.env}/report/K8S`, {
                  body,
                  json: true,
                })
              ).status,
            );
          }
        }),
      );
      return { figures: c.figures };
    },
  },
  '20,000 idle connections': {
    describe: (full) =>
      `${full ? 20_000 : 'scaled (DES_HOSTILE_IDLE_CONNECTIONS, default 2,000):'} idle connections held 15 s`,
    fixedBy: 'strangers',
    async run(ctx, started) {
      const sockets: Socket[] = [];
      return holding(sockets, async () => {
        started(`opening ${ctx.idleConnections} idle connections`);
        let refused = 0;
        for (let i = 0; i < ctx.idleConnections; i += 100) {
          const batch = await Promise.all(
            Array.from({ length: Math.min(100, ctx.idleConnections - i) }, () => openSocket(ctx.baseUrl)),
          );
          for (const s of batch)
            if (s) sockets.push(s);
            else refused++;
        }
        let closedByServer = 0;
        for (const s of sockets) s.once('close', () => closedByServer++);
        started(`holding ${sockets.length} idle connections`);
        await seconds(15);
        return {
          figures: { opened: sockets.length, refused, 'closed by the service within 15 s': closedByServer },
        };
      });
    },
  },
  '250 slow 10 MB PUTs without a key': {
    describe: (full) =>
      `${full ? 250 : 'scaled: 50'} PUTs announcing 10 MB, without a key, sending 1 kB/s for 10 s`,
    fixedBy: 'strangers',
    async run(ctx, started) {
      const count = ctx.full ? 250 : 50;
      const url = new URL(`${ctx.baseUrl}/api/v2/environments/${ctx.org}/${ctx.env}/report/K8S`);
      const answered: (number | string)[] = [];
      const requests = Array.from({ length: count }, () => {
        const req = httpRequest({
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'PUT',
          headers: { 'Content-Type': 'application/json', 'Content-Length': String(10 * 1024 * 1024) },
        });
        req.on('response', (res) => {
          answered.push(res.statusCode ?? 0);
          res.resume();
        });
        req.on('error', () => answered.push('reset'));
        req.write('{"artifacts":[');
        return req;
      });
      started(`${count} slow PUTs without a key`);
      for (let s = 0; s < 10; s++) {
        for (const r of requests) if (!r.destroyed) r.write(Buffer.alloc(1024, ' '));
        await seconds(1);
      }
      for (const r of requests) r.destroy();
      const c = counter();
      answered.forEach((a) => c.add(a));
      return { figures: { ...c.figures, 'unanswered after 10 s': count - answered.length } };
    },
  },
  '3 concurrent bundles of large attachments': {
    describe: () => `3 bundles at once of the big trail (its attachments: DES_HOSTILE_ATTACHMENTS × 10 MB)`,
    fixedBy: 'streaming',
    async run(ctx, started) {
      started('3 × GET bundle');
      const answers = await Promise.all(
        [1, 2, 3].map(() => call(ctx, 'GET', `/api/v2/trails/${ctx.org}/${ctx.flow}/${ctx.trail}/bundle`)),
      );
      return {
        figures: Object.fromEntries(answers.map((a, i) => [`bundle ${i}`, `${a.status} ${a.bytes} B`])),
      };
    },
  },
  '/search over 4,000 artifacts': {
    describe: (full) =>
      `4 clients × 5 searches by a prefix every seeded artifact matches (${full ? 4000 : 'scaled: 1,000'} artifacts)`,
    fixedBy: 'reports',
    async run(ctx, started) {
      const c = counter();
      let bytes = 0;
      await Promise.all(
        [0, 1, 2, 3].map(async (client) => {
          for (let n = 0; n < 5; n++) {
            started(`client ${client} search ${n}`);
            const a = await call(ctx, 'GET', `/api/v2/search/${ctx.org}/sha/${ctx.artifactPrefix}`);
            c.add(a.status);
            bytes = Math.max(bytes, a.bytes);
          }
        }),
      );
      return { figures: { ...c.figures, 'largest answer bytes': bytes } };
    },
  },
  'stalled attachment downloads': {
    describe: () => '20 downloads of the big attachments that read their first bytes, then stall 15 s',
    fixedBy: 'streaming',
    async run(ctx, started) {
      const url = new URL(ctx.baseUrl);
      const statuses: (number | string)[] = [];
      const stalled = Array.from({ length: 20 }, (_, i) =>
        httpRequest({
          host: url.hostname,
          port: url.port,
          path: `/api/v2/trails/${ctx.org}/${ctx.flow}/${ctx.trail}/attachments/${ctx.attachments[i % ctx.attachments.length]}`,
          headers: { Authorization: `Bearer ${ctx.key}` },
        }),
      );
      for (const req of stalled) {
        req.on('response', (res) => {
          statuses.push(res.statusCode ?? 0);
          res.once('data', () => res.pause());
        });
        req.on('error', () => statuses.push('reset'));
        req.end();
      }
      started('20 stalled attachment downloads');
      await seconds(15);
      for (const r of stalled) r.destroy();
      const c = counter();
      statuses.forEach((s) => c.add(s));
      return { figures: c.figures };
    },
  },
  '4 readers of a 51 MB trail': {
    describe: (full) =>
      `4 clients reading the big trail and its events at once (${full ? '51 MB' : 'scaled: ~10 MB'})`,
    fixedBy: 'streaming',
    async run(ctx, started) {
      const c = counter();
      let bytes = 0;
      await Promise.all(
        [0, 1, 2, 3].map(async (client) => {
          for (const path of ['', '/events']) {
            started(`reader ${client} GET trail${path}`);
            const a = await call(ctx, 'GET', `/api/v2/trails/${ctx.org}/${ctx.flow}/${ctx.trail}${path}`);
            c.add(a.status);
            bytes = Math.max(bytes, a.bytes);
          }
        }),
      );
      return { figures: { ...c.figures, 'largest answer bytes': bytes } };
    },
  },
  'change-population CSV loop': {
    describe: () => '2 clients looping the whole change population as CSV for 15 s',
    fixedBy: 'streaming',
    async run(ctx, started) {
      const c = counter();
      let bytes = 0;
      const until = Date.now() + 15_000;
      await Promise.all(
        [0, 1].map(async (client) => {
          for (let n = 0; Date.now() < until; n++) {
            started(`client ${client} CSV ${n}`);
            const a = await call(ctx, 'GET', `/api/v2/audit/${ctx.org}/changes?from=1971-01-01T00:00:00Z`, {
              accept: 'text/csv',
            });
            c.add(a.status);
            bytes = Math.max(bytes, a.bytes);
          }
        }),
      );
      return { figures: { ...c.figures, 'largest answer bytes': bytes } };
    },
  },
};
