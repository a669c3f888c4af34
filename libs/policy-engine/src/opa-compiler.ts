import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, resolve } from 'node:path';
import { promisify } from 'node:util';
import { PolicyError } from './policy-error';

const run = promisify(execFile);

export interface CompiledPolicy {
  hash: string;
  wasm: Buffer;
}

/**
 * The one entrypoint evaluated: `allow` and `violations` together, so the
 * input is parsed once. Each is wrapped in an array so that an undefined rule
 * comes back as `[]` instead of hiding the other.
 */
export const ENTRYPOINT = 'des_entry/result';
const ENTRY_SOURCE = `package des_entry
import rego.v1
result := {"allow": [x | x := data.policy.allow], "violations": [x | x := data.policy.violations]}
`;
/** Part of the cache key: compiled modules of another layout are never reused. */
const LAYOUT = 'des-entry-1';

/** OPA_PATH, else `opa` on the PATH, else the one the setup script built into .tools/bin. */
export function opaPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.OPA_PATH) return env.OPA_PATH;
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const built = join(dir, '.tools/bin/opa');
    if (existsSync(built)) return built;
  }
  return 'opa';
}

/** A stable hash of a policy's files (names and sources). */
export function policyHash(files: Record<string, string>): string {
  const h = createHash('sha256').update(LAYOUT).update('\0');
  for (const name of Object.keys(files).sort()) h.update(name).update('\0').update(files[name]).update('\0');
  return h.digest('hex');
}

/** Compiled policies kept where every process of a deployment finds them (server mode: GridFS). */
export interface SharedPolicyCache {
  get(name: string): Promise<Buffer | null>;
  put(name: string, bytes: Buffer): Promise<void>;
}

/**
 * Rego → WebAssembly with the OPA compiler (`opa build -t wasm`), cached by a
 * hash of the files in memory, on disk and, in server mode, in storage every
 * worker shares, so a repeated policy never compiles again, even after a
 * restart or on another worker. The caches are caches: failing to write one
 * (a full disk) costs a compilation later, never an evaluation.
 */
export class OpaCompiler {
  private readonly memory = new Map<string, CompiledPolicy>();
  /** How many times the OPA compiler actually ran (the cache's witness). */
  compilations = 0;

  constructor(
    private readonly cacheDir: string,
    private readonly opa = opaPath(),
    private readonly timeoutMs = 30_000,
    private readonly shared?: SharedPolicyCache,
  ) {
    mkdirSync(cacheDir, { recursive: true });
  }

  async compile(files: Record<string, string>): Promise<CompiledPolicy> {
    const hash = policyHash(files);
    const cached = this.memory.get(hash) ?? this.fromDisk(hash) ?? (await this.fromShared(hash));
    if (cached) {
      this.memory.set(hash, cached);
      return cached;
    }
    const compiled = await this.build(hash, files);
    this.writeAtomically(`${hash}.wasm`, compiled.wasm);
    await this.shared?.put(`${hash}.wasm`, compiled.wasm).catch(() => undefined);
    this.memory.set(hash, compiled);
    return compiled;
  }

  private async fromShared(hash: string): Promise<CompiledPolicy | undefined> {
    const wasm = await this.shared?.get(`${hash}.wasm`).catch(() => null);
    if (!wasm) return undefined;
    this.writeAtomically(`${hash}.wasm`, wasm);
    return { hash, wasm };
  }

  /** Written whole then renamed: a crash never leaves a cache entry half-written; a full disk leaves none. */
  private writeAtomically(name: string, content: string | Buffer): void {
    const temporary = join(this.cacheDir, `.${name}.${process.pid}.${randomUUID()}`);
    try {
      writeFileSync(temporary, content);
      renameSync(temporary, join(this.cacheDir, name));
    } catch {
      rmSync(temporary, { force: true });
    }
  }

  private fromDisk(hash: string): CompiledPolicy | undefined {
    const wasm = join(this.cacheDir, `${hash}.wasm`);
    return existsSync(wasm) ? { hash, wasm: readFileSync(wasm) } : undefined;
  }

  private async build(hash: string, files: Record<string, string>): Promise<CompiledPolicy> {
    const work = mkdtempSync(join(tmpdir(), 'des-opa-'));
    try {
      const src = join(work, 'src');
      for (const [name, source] of Object.entries(files)) {
        const path = resolve(src, normalize(name));
        if (!path.startsWith(src + '/'))
          throw new PolicyError('policy_error', `file path '${name}' leaves the policy`);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, source);
      }
      writeFileSync(join(work, 'entry.rego'), ENTRY_SOURCE);
      await this.opaBuild(work);
      await run('tar', ['-xzf', join(work, 'bundle.tar.gz'), '-C', work, '/policy.wasm']);
      this.compilations++;
      return { hash, wasm: readFileSync(join(work, 'policy.wasm')) };
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }

  private async opaBuild(work: string): Promise<void> {
    try {
      await run(
        this.opa,
        [
          'build',
          '-t',
          'wasm',
          // policy/allow is listed so the compiler refuses a policy without it.
          ...['-e', ENTRYPOINT, '-e', 'policy/allow'],
          '-o',
          join(work, 'bundle.tar.gz'),
          join(work, 'src'),
          join(work, 'entry.rego'),
        ],
        { timeout: this.timeoutMs, maxBuffer: 4 * 1024 * 1024 },
      );
    } catch (error) {
      const e = error as { code?: string | number; stdout?: string; stderr?: string; message: string };
      if (e.code === 'ENOENT')
        throw new PolicyError('service_error', `the OPA compiler was not found at ${this.opa}`);
      // OPA writes its errors to stdout or stderr depending on the version.
      const stderr = (`${e.stdout ?? ''}\n${e.stderr ?? ''}`.trim() || e.message)
        .replaceAll(join(work, 'src') + '/', '')
        .trim();
      if (/entrypoint "policy\/allow" does not refer/.test(stderr)) {
        throw new PolicyError('policy_error', 'the policy defines no `allow` rule in package `policy`');
      }
      throw new PolicyError('policy_error', stderr);
    }
  }
}
