import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse, parseAllDocuments } from 'yaml';

/**
 * The deployment files (issue "Production that runs"), checked without a
 * container engine or a cluster:
 * - docker/docker-compose.yml against the compose-spec JSON schema (from the
 *   compose-go Go module, fetched by `npm run setup` into .tools/compose-spec);
 * - the Helm chart with `helm lint --strict`, rendered with `helm template`
 *   (default values and ci/existing-secret-values.yaml), each render validated
 *   by `kubeconform -strict` against Kubernetes' JSON schemas (made by the
 *   setup from the Kubernetes source's OpenAPI document, .tools/k8s-schemas);
 * - the properties a production deployment relies on: non-root, read-only
 *   root file systems, probes on the ports that serve them, the projector's
 *   two replicas, disruption budgets, the service key as a mounted secret,
 *   grace periods longer than the service's shutdown timeout;
 * - docker/Dockerfile: what the build copies exists, and the runtime stage's
 *   user, volume and settings.
 * helm, kubeconform and the schemas come from `npm run setup`: missing, this fails and says so.
 */
const ROOT = resolve(__dirname, '../..');
const TOOLS = join(ROOT, '.tools');
const CHART = join(ROOT, 'deploy/helm/delivery-evidence-service');
const VARIANT = join(CHART, 'ci/existing-secret-values.yaml');
const COMPOSE = join(ROOT, 'docker/docker-compose.yml');
const DOCKERFILE = join(ROOT, 'docker/Dockerfile');
const COMPOSE_SCHEMA = join(TOOLS, 'compose-spec/compose-spec.json');
const K8S_SCHEMAS = join(TOOLS, 'k8s-schemas');
const API_PORT = 8080;
const OPS_PORT = 9464;
const IMAGE_USER = 10001;

const scratch = mkdtempSync(join(tmpdir(), 'des-deploy-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A file the setup script makes; missing, the test fails with what to do. */
function fromSetup(path: string, what: string): string {
  if (!existsSync(path)) {
    assert.fail(`${what} is missing (${path}): run \`npm run setup\`, which builds or fetches it`);
  }
  return path;
}

function run(tool: string, args: string[]): { status: number; output: string } {
  const binary = fromSetup(join(TOOLS, 'bin', tool), tool);
  const result = spawnSync(binary, args, { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  if (result.error) throw result.error;
  return { status: result.status ?? 1, output: `${result.stdout}${result.stderr}` };
}

// ---- Kubernetes objects, as far as the assertions read them ----
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Probe {
  httpGet?: { path: string; port: number | string };
}
interface Container {
  name: string;
  args?: string[];
  command?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  securityContext?: {
    runAsNonRoot?: boolean;
    runAsUser?: number;
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    capabilities?: { drop?: string[] };
    seccompProfile?: { type: string };
  };
}
interface Volume {
  name: string;
  emptyDir?: object;
  persistentVolumeClaim?: { claimName: string };
  secret?: { secretName: string; items?: { key: string; path: string }[] };
}
interface PodSpec {
  containers: Container[];
  volumes?: Volume[];
  terminationGracePeriodSeconds?: number;
  automountServiceAccountToken?: boolean;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type: string } };
}
interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
}
interface Deployment extends K8sObject {
  spec: {
    replicas?: number;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}

interface Render {
  name: string;
  text: string;
  file: string;
  objects: K8sObject[];
}

function render(name: string, extra: string[] = []): Render {
  const { status, output } = run('helm', ['template', 'des', CHART, '--namespace', 'evidence', ...extra]);
  assert.equal(status, 0, `helm template (${name}) failed:\n${output}`);
  const objects = parseAllDocuments(output)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
  const file = join(scratch, `${name}.yaml`);
  writeFileSync(file, output);
  return { name, text: output, file, objects };
}

const renders = new Map<string, Render>();
function rendered(name: 'default' | 'variant'): Render {
  let r = renders.get(name);
  if (!r) {
    r = name === 'default' ? render(name) : render(name, ['-f', VARIANT]);
    renders.set(name, r);
  }
  return r;
}

function find<T extends K8sObject>(r: Render, kind: string, component?: string): T[] {
  return r.objects.filter(
    (o) =>
      o.kind === kind && (!component || o.metadata.labels?.['app.kubernetes.io/component'] === component),
  ) as T[];
}
function one<T extends K8sObject>(r: Render, kind: string, component?: string): T {
  const found = find<T>(r, kind, component);
  assert.equal(found.length, 1, `${r.name}: one ${kind}${component ? ` of the ${component}` : ''}`);
  return found[0];
}

/** The number a probe's port names (a port name resolves through the container's ports). */
function probePort(container: Container, probe: Probe | undefined, what: string): number {
  const port = probe?.httpGet?.port;
  assert.ok(port !== undefined, `${container.name}: ${what} is an HTTP probe`);
  if (typeof port === 'number') return port;
  const named = container.ports?.find((p) => p.name === port);
  assert.ok(named, `${container.name}: ${what}'s port ${port} is a port of the container`);
  return named.containerPort;
}

function kubeconform(file: string): { status: number; output: string } {
  const schemas = fromSetup(K8S_SCHEMAS, 'the Kubernetes JSON schemas');
  const dirs = readdirSync(schemas).filter((d) => /^v[\d.]+-standalone-strict$/.test(d));
  assert.equal(dirs.length, 1, `one schema version in ${schemas}: ${dirs.join(', ')}`);
  const version = dirs[0].slice(1, -'-standalone-strict'.length);
  return run('kubeconform', [
    '-strict',
    '-summary',
    '-kubernetes-version',
    version,
    '-schema-location',
    schemas,
    file,
  ]);
}

/** kubeconform's closing line: "Summary: N resources found in 1 file - Valid: N, Invalid: 0, Errors: 0, Skipped: 0". */
function summary(output: string): Record<'found' | 'valid' | 'invalid' | 'errors' | 'skipped', number> {
  const m =
    /Summary: (\d+) resources? found in \d+ files? - Valid: (\d+), Invalid: (\d+), Errors: (\d+),? Skipped: (\d+)/.exec(
      output,
    );
  assert.ok(m, `kubeconform printed its summary:\n${output}`);
  const [found, valid, invalid, errors, skipped] = m.slice(1).map(Number);
  return { found, valid, invalid, errors, skipped };
}

describe('docker/docker-compose.yml', () => {
  const compose = parse(readFileSync(COMPOSE, 'utf8'), { merge: true }) as {
    services: Record<string, Record<string, unknown>>;
    secrets?: Record<string, { file?: string }>;
    volumes?: Record<string, unknown>;
  };
  const validate = () => {
    const schema = JSON.parse(
      readFileSync(fromSetup(COMPOSE_SCHEMA, 'the compose-spec schema'), 'utf8'),
    ) as object;
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    return ajv.compile(schema);
  };

  it('is valid against the compose-spec schema', () => {
    const check = validate();
    assert.ok(check(compose), `compose-spec: ${JSON.stringify(check.errors, null, 2)}`);
    // The schema does refuse what Compose refuses (a misspelt key).
    const misspelt = structuredClone(compose);
    misspelt.services.api.read_onyl = true;
    assert.equal(check(misspelt), false, 'a misspelt service key is refused');
  });

  it('runs the service read-only, with its data volume, the secret key file and health checks', () => {
    assert.ok(compose.secrets?.service_key?.file, 'the service key is a compose secret from a file');
    for (const name of ['api', 'projector', 'worker']) {
      const service = compose.services[name] as {
        read_only?: boolean;
        tmpfs?: string[];
        volumes?: string[];
        secrets?: string[];
        environment?: Record<string, string>;
        healthcheck?: { test: string[] };
        stop_grace_period?: string;
        command: string[];
      };
      assert.equal(service.read_only, true, `${name}: read_only`);
      assert.ok(
        service.tmpfs?.some((t) => t.split(':')[0] === '/tmp'),
        `${name}: /tmp is a tmpfs`,
      );
      const data = service.volumes?.find((v) => v.endsWith(':/data'));
      assert.ok(data, `${name}: a volume at /data`);
      assert.ok(
        compose.volumes && data.split(':')[0] in compose.volumes,
        `${name}: its data volume is a named volume`,
      );
      assert.deepEqual(service.secrets, ['service_key'], `${name}: the service key secret`);
      assert.equal(service.environment?.DES_SERVICE_KEY_FILE, '/run/secrets/service_key', name);
      for (const v of ['KURRENTDB_URL', 'MONGODB_URL', 'REDIS_URL'])
        assert.ok(service.environment?.[v], `${name}: ${v}`);
      const port = name === 'api' ? API_PORT : OPS_PORT;
      assert.match(
        service.healthcheck?.test.join(' ') ?? '',
        new RegExp(`localhost:${port}/health/ready`),
        name,
      );
      const grace = Number(/^(\d+)s$/.exec(service.stop_grace_period ?? '')?.[1]);
      const shutdown = Number(service.environment?.DES_SHUTDOWN_TIMEOUT_MS ?? 20_000);
      assert.ok(
        grace * 1000 > shutdown,
        `${name}: stop_grace_period ${grace}s > DES_SHUTDOWN_TIMEOUT_MS ${shutdown}`,
      );
    }
    assert.deepEqual((compose.services.projector.deploy as { replicas: number }).replicas, 2);
  });
});

describe('the Helm chart (deploy/helm/delivery-evidence-service)', () => {
  it('passes helm lint --strict, with default values and with the variant', () => {
    for (const extra of [[], ['-f', VARIANT]]) {
      const { status, output } = run('helm', ['lint', '--strict', CHART, ...extra]);
      console.log(`# helm lint --strict ${extra.join(' ')}: ${output.trim().split('\n').pop()}`);
      assert.equal(status, 0, output);
      assert.match(output, /1 chart\(s\) linted, 0 chart\(s\) failed/);
      assert.doesNotMatch(output, /\[(WARNING|ERROR)\]/, output);
    }
  });

  for (const name of ['default', 'variant'] as const) {
    it(`renders (${name} values) manifests kubeconform -strict finds valid`, () => {
      const r = rendered(name);
      const { status, output } = kubeconform(r.file);
      console.log(`# kubeconform -strict (${name}): ${output.trim().split('\n').pop()}`);
      assert.equal(status, 0, output);
      const counts = summary(output);
      assert.deepEqual(counts, {
        found: r.objects.length,
        valid: r.objects.length,
        invalid: 0,
        errors: 0,
        skipped: 0,
      });
    });
  }

  it('kubeconform refuses a field Kubernetes does not know (the schemas are strict)', () => {
    const deployment = structuredClone(one<Deployment>(rendered('default'), 'Deployment', 'api'));
    (deployment.spec.template.spec.containers[0] as unknown as Record<string, unknown>).readinesProbe = {};
    const file = join(scratch, 'misspelt.yaml');
    writeFileSync(file, JSON.stringify(deployment));
    const { status, output } = kubeconform(file);
    assert.notEqual(status, 0, output);
    assert.match(output, /readinesProbe/);
    assert.equal(summary(output).invalid, 1);
  });

  for (const name of ['default', 'variant'] as const) {
    it(`runs every container unprivileged, on a read-only root file system (${name})`, () => {
      const deployments = find<Deployment>(rendered(name), 'Deployment');
      assert.deepEqual(deployments.map((d) => d.metadata.labels?.['app.kubernetes.io/component']).sort(), [
        'api',
        'projector',
        'worker',
      ]);
      for (const d of deployments) {
        const pod = d.spec.template.spec;
        assert.equal(pod.securityContext?.runAsNonRoot, true, `${d.metadata.name}: pod runAsNonRoot`);
        assert.equal(pod.securityContext?.seccompProfile?.type, 'RuntimeDefault');
        assert.equal(pod.automountServiceAccountToken, false, `${d.metadata.name}: no API token`);
        for (const c of pod.containers) {
          const sc = c.securityContext;
          const what = `${d.metadata.name}/${c.name}`;
          assert.equal(sc?.runAsNonRoot, true, `${what}: runAsNonRoot`);
          assert.equal(sc?.runAsUser, IMAGE_USER, `${what}: runAsUser`);
          assert.equal(sc?.readOnlyRootFilesystem, true, `${what}: readOnlyRootFilesystem`);
          assert.equal(sc?.allowPrivilegeEscalation, false, `${what}: allowPrivilegeEscalation`);
          assert.deepEqual(sc?.capabilities?.drop, ['ALL'], `${what}: drops every capability`);
          assert.equal(sc?.seccompProfile?.type, 'RuntimeDefault', `${what}: seccomp`);
          assert.ok(
            c.resources?.requests?.memory && c.resources.limits?.memory,
            `${what}: memory requested and limited`,
          );
          // Writable: /tmp and /data only, each a volume of the pod.
          for (const path of ['/tmp', '/data']) {
            const mount = c.volumeMounts?.find((m) => m.mountPath === path);
            assert.ok(mount, `${what}: ${path} is mounted`);
            const volume = pod.volumes?.find((v) => v.name === mount.name);
            assert.ok(
              volume?.emptyDir ?? volume?.persistentVolumeClaim,
              `${what}: ${path} is an emptyDir or a claim`,
            );
          }
        }
      }
    });

    it(`probes each process where it serves /health (${name})`, () => {
      const r = rendered(name);
      const expected = { api: API_PORT, projector: OPS_PORT, worker: OPS_PORT };
      for (const [component, port] of Object.entries(expected)) {
        const [c] = one<Deployment>(r, 'Deployment', component).spec.template.spec.containers;
        assert.equal(c.livenessProbe?.httpGet?.path, '/health/live', `${component}: liveness`);
        assert.equal(c.readinessProbe?.httpGet?.path, '/health/ready', `${component}: readiness`);
        assert.equal(probePort(c, c.livenessProbe, 'liveness'), port, `${component}: liveness port`);
        assert.equal(probePort(c, c.readinessProbe, 'readiness'), port, `${component}: readiness port`);
        if (c.startupProbe) assert.equal(probePort(c, c.startupProbe, 'startup'), port);
        const env = new Map(c.env?.map((e) => [e.name, e]));
        if (component !== 'api') assert.equal(env.get('DES_OPS_PORT')?.value, String(OPS_PORT), component);
        assert.equal(c.command, undefined, `${component}: args only, the image's entrypoint stays`);
        assert.equal(c.args?.[1], `dist/apps/${component}/src/main.js`, `${component}: its entry point`);
      }
      const [api] = one<Deployment>(r, 'Deployment', 'api').spec.template.spec.containers;
      assert.ok(api.args?.includes('--role=api'));
    });

    it(`gives the service its key as a file and its connection strings from a Secret (${name})`, () => {
      const r = rendered(name);
      const secrets = find<K8sObject & { data: Record<string, string> }>(r, 'Secret');
      const secretName =
        name === 'default'
          ? one<K8sObject>(r, 'Secret').metadata.name
          : (parse(readFileSync(VARIANT, 'utf8')) as { secrets: { existingSecret: string } }).secrets
              .existingSecret;
      if (name === 'variant') assert.equal(secrets.length, 0, 'existingSecret: the chart makes no Secret');
      for (const d of find<Deployment>(r, 'Deployment')) {
        const pod = d.spec.template.spec;
        const [c] = pod.containers;
        const env = new Map(c.env?.map((e) => [e.name, e]));
        for (const v of ['KURRENTDB_URL', 'MONGODB_URL', 'REDIS_URL']) {
          const ref = env.get(v)?.valueFrom?.secretKeyRef;
          assert.equal(ref?.name, secretName, `${d.metadata.name}: ${v} from the Secret`);
          if (name === 'default')
            assert.ok(secrets[0].data[ref.key], `${v}: its key is in the chart's Secret`);
        }
        const keyFile = env.get('DES_SERVICE_KEY_FILE')?.value;
        assert.ok(keyFile, `${d.metadata.name}: DES_SERVICE_KEY_FILE`);
        const mount = c.volumeMounts?.find((m) => keyFile.startsWith(`${m.mountPath}/`));
        assert.ok(mount?.readOnly, `${d.metadata.name}: the key file is on a read-only mount`);
        const volume = pod.volumes?.find((v) => v.name === mount.name);
        assert.equal(
          volume?.secret?.secretName,
          secretName,
          `${d.metadata.name}: the key file is the Secret's`,
        );
        assert.ok(
          volume.secret.items?.some((i) => `${mount.mountPath}/${i.path}` === keyFile),
          `${d.metadata.name}: ${keyFile} is an item of the Secret`,
        );
        if (name === 'default') {
          const key = volume.secret.items?.find((i) => `${mount.mountPath}/${i.path}` === keyFile)?.key;
          assert.ok(key && secrets[0].data[key], 'the service key is in the Secret');
        }
        // SIGTERM: in-flight work gets DES_SHUTDOWN_TIMEOUT_MS, plus the API's preStop pause, before the kill.
        const shutdownMs = Number(env.get('DES_SHUTDOWN_TIMEOUT_MS')?.value);
        const pause = Number(c.lifecycle?.preStop?.exec?.command.at(-1) ?? 0);
        assert.ok(
          (pod.terminationGracePeriodSeconds ?? 30) * 1000 > shutdownMs + pause * 1000,
          `${d.metadata.name}: terminationGracePeriodSeconds > DES_SHUTDOWN_TIMEOUT_MS + preStop`,
        );
      }
    });
  }

  it('scales: the API behind an autoscaler and a budget, two projectors, the workers', () => {
    const r = rendered('default');
    const api = one<Deployment>(r, 'Deployment', 'api');
    assert.equal(api.spec.replicas, undefined, 'the autoscaler sets the API replicas');
    const hpa = one<K8sObject>(r, 'HorizontalPodAutoscaler', 'api');
    assert.equal(hpa.apiVersion, 'autoscaling/v2');
    assert.deepEqual(hpa.spec?.scaleTargetRef, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: api.metadata.name,
    });
    assert.ok(Number(hpa.spec?.minReplicas) >= 2, 'at least two API pods');
    assert.equal(
      one<Deployment>(r, 'Deployment', 'projector').spec.replicas,
      2,
      'projector: two replicas, one lease',
    );
    assert.ok(Number(one<Deployment>(r, 'Deployment', 'worker').spec.replicas) >= 1);
    for (const component of ['api', 'projector', 'worker']) {
      const pdb = one<K8sObject>(r, 'PodDisruptionBudget', component);
      const pods = one<Deployment>(r, 'Deployment', component).spec.template.metadata.labels;
      const selector = (pdb.spec?.selector as { matchLabels: Record<string, string> }).matchLabels;
      for (const [k, v] of Object.entries(selector))
        assert.equal(pods[k], v, `${component}: the budget selects its pods`);
    }
    assert.equal(find(r, 'ServiceMonitor').length, 0, 'no ServiceMonitor unless asked');

    const v = rendered('variant');
    assert.equal(find(v, 'HorizontalPodAutoscaler').length, 0, 'autoscaling off: no autoscaler');
    assert.equal(one<Deployment>(v, 'Deployment', 'api').spec.replicas, 3);
    assert.equal(one<K8sObject>(v, 'PodDisruptionBudget', 'api').spec?.minAvailable, 2);
    assert.equal(find(v, 'PodDisruptionBudget', 'worker').length, 0);
    assert.equal(one<K8sObject>(v, 'ServiceMonitor').apiVersion, 'monitoring.coreos.com/v1');
    const apiVolumes = one<Deployment>(v, 'Deployment', 'api').spec.template.spec.volumes;
    assert.equal(
      apiVolumes?.find((x) => x.name === 'data')?.persistentVolumeClaim?.claimName,
      'delivery-evidence-attachments',
    );
  });

  it('refuses a grace period no longer than the shutdown timeout', () => {
    const { status, output } = run('helm', [
      'template',
      'des',
      CHART,
      '--set',
      'config.shutdownTimeoutMs=30000',
      '--set',
      'config.terminationGracePeriodSeconds=30',
    ]);
    assert.notEqual(status, 0);
    assert.match(
      output,
      /terminationGracePeriodSeconds \(30 s\) must be longer than config\.shutdownTimeoutMs/,
    );
  });
});

describe('docker/Dockerfile', () => {
  const text = readFileSync(DOCKERFILE, 'utf8').replace(/\\\n/g, ' ');
  const lines = text.split('\n').map((l) => l.trim());
  const stages = text.split(/^FROM /m).slice(1);

  it('copies from the repository only files that exist, and what `npm run build` reads', () => {
    const copies = lines.filter((l) => /^COPY /.test(l) && !/--from=/.test(l));
    assert.ok(copies.length > 0);
    const sources = copies.flatMap((l) =>
      l
        .replace(/^COPY\s+(--\S+\s+)*/, '')
        .split(/\s+/)
        .slice(0, -1),
    );
    for (const source of sources) assert.ok(existsSync(join(ROOT, source)), `COPY ${source}: exists`);
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    for (const source of sources)
      assert.ok(!ignored.includes(source.replace(/\/$/, '')), `COPY ${source}: not in .dockerignore`);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    for (const script of pkg.scripts.build.match(/scripts\/[\w-]+\.mjs/g) ?? [])
      assert.ok(
        sources.some((s) => s === script || (s.startsWith('scripts/') && script.startsWith(s))),
        `npm run build runs ${script}: the build stage copies it`,
      );
    for (const dir of ['apps', 'libs', 'clients'])
      assert.ok(sources.includes(dir), `the build stage copies ${dir}/`);
    assert.match(
      text,
      /go build -o \/out\/opa github\.com\/open-policy-agent\/opa/,
      'OPA as setup builds it',
    );
  });

  it('runs as an unprivileged user with /data as its volume', () => {
    const runtime = stages.at(-1) ?? '';
    assert.match(runtime, /^node:20-bookworm-slim/);
    assert.match(runtime, new RegExp(`^USER ${IMAGE_USER}(:${IMAGE_USER})?$`, 'm'));
    assert.match(runtime, /^VOLUME \["\/data"\]$/m);
    assert.match(runtime, /DES_DATA_DIR=\/data/);
    assert.match(runtime, /OPA_PATH=\/usr\/local\/bin\/opa/);
    assert.match(runtime, /PUPPETEER_EXECUTABLE_PATH=\/usr\/bin\/chromium/);
    assert.match(runtime, /^EXPOSE 8080 9464$/m);
    assert.match(runtime, /COPY --from=opa \/out\/opa \/usr\/local\/bin\/opa/);
    // /app stays root's: no chown of what is copied into it.
    assert.doesNotMatch(runtime, /COPY --chown/);
  });
});
