import { z } from 'zod';

/**
 * One environment variable the service reads: how it is parsed and checked
 * (zod), its default and what it means. `loadConfig` reads every variable
 * through this table, and the configuration table in docs/operations.md is
 * generated from it (`npm run cli -- config table`), so the two cannot drift.
 */
export interface Setting<T> {
  name: string;
  /** The accepted form, as a person reads it ("an integer ≥ 1"). */
  form: string;
  /** The default as the docs show it ('' when unset means "none"). */
  shownDefault: string;
  meaning: string;
  /** Parses the raw text (absent or empty: the default). */
  parse(raw: string | undefined): z.ZodSafeParseResult<T>;
}

/** A wrong value: which variable, what is wrong with it, what it accepts (one line each). */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

function setting<T>(
  name: string,
  form: string,
  fallback: T,
  shownDefault: string,
  meaning: string,
  schema: z.ZodType<T>,
): Setting<T> {
  return {
    name,
    form,
    shownDefault,
    meaning,
    parse: (raw) =>
      raw === undefined || raw.trim() === ''
        ? { success: true, data: fallback }
        : schema.safeParse(raw.trim()),
  } as Setting<T>;
}

const INTEGER = /^-?\d+$/;

/** Text that is a whole number from `min` (to `max`). */
function wholeNumber(min: number, max?: number): z.ZodType<number> {
  let number = z.number().int().min(min, `is below ${min}`);
  if (max !== undefined) number = number.max(max, `is above ${max}`);
  return z
    .string()
    .regex(INTEGER, 'is not a whole number')
    .transform(Number)
    .pipe(number) as z.ZodType<number>;
}

/** A whole number within bounds. */
export function integer(
  name: string,
  fallback: number,
  meaning: string,
  bounds: { min?: number; max?: number; shownDefault?: string } = {},
): Setting<number> {
  const { min = 0, max } = bounds;
  const form = max === undefined ? `an integer ≥ ${min}` : `an integer from ${min} to ${max}`;
  return setting(
    name,
    form,
    fallback,
    bounds.shownDefault ?? String(fallback),
    meaning,
    wholeNumber(min, max),
  );
}

/** An optional whole number (unset: undefined). */
export function optionalInteger(
  name: string,
  meaning: string,
  shownDefault: string,
  min = 1,
): Setting<number | undefined> {
  return setting<number | undefined>(
    name,
    `an integer ≥ ${min}`,
    undefined,
    shownDefault,
    meaning,
    wholeNumber(min),
  );
}

export function boolean(name: string, fallback: boolean, meaning: string): Setting<boolean> {
  const schema = z
    .enum(['true', 'false'], { error: () => 'is neither true nor false' })
    .transform((v) => v === 'true');
  return setting(name, '`true` or `false`', fallback, String(fallback), meaning, schema);
}

export function text(
  name: string,
  fallback: string | undefined,
  meaning: string,
  form = 'text',
  shownDefault = fallback ?? '',
): Setting<string | undefined> {
  return setting<string | undefined>(name, form, fallback, shownDefault, meaning, z.string());
}

export function oneOf<const V extends string>(
  name: string,
  values: readonly V[],
  fallback: V,
  meaning: string,
): Setting<V> {
  const schema = z.enum(values as unknown as [V, ...V[]], {
    error: () => 'is not one of the accepted values',
  });
  return setting(
    name,
    values.map((v) => `\`${v}\``).join(', '),
    fallback,
    fallback,
    meaning,
    schema as z.ZodType<V>,
  );
}

/** A URL whose scheme is one of `schemes` (unset: undefined). */
export function url(name: string, schemes: string[], meaning: string): Setting<string | undefined> {
  const form = `a URL starting ${schemes.map((s) => `\`${s}://\``).join(' or ')}`;
  const schema = z.string().refine(
    (v) => {
      if (!schemes.some((s) => v.startsWith(`${s}://`))) return false;
      try {
        return Boolean(new URL(v.replace(/^[a-z+]+:/, 'http:')).host);
      } catch {
        return false;
      }
    },
    { error: () => 'has another scheme or no host' },
  );
  return setting<string | undefined>(name, form, undefined, '', meaning, schema);
}

/** A URL without its credentials (user and password), for logs and errors; in text too. */
export function redactUrl(address: string): string {
  return address.replace(/([a-z][a-z0-9+.-]*:\/\/)[^@/\s]*@/gi, '$1');
}

/** Reads every setting; all problems are reported at once. */
export function readSettings<S extends Record<string, Setting<unknown>>>(
  settings: S,
  env: NodeJS.ProcessEnv,
): { [K in keyof S]: S[K] extends Setting<infer T> ? T : never } {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, s] of Object.entries(settings)) {
    const result = s.parse(env[s.name]);
    if (result.success) values[key] = result.data;
    else {
      const why = result.error.issues[0]?.message ?? 'is not valid';
      problems.push(`${s.name}=${shown(env[s.name] ?? '', s)} ${why}; expected ${s.form.replace(/`/g, '')}`);
    }
  }
  if (problems.length) throw new ConfigError(problems);
  return values as never;
}

function shown(raw: string, s: Setting<unknown>): string {
  const value = s.form.startsWith('a URL') ? redactUrl(raw) : raw;
  return `'${value.length > 80 ? `${value.slice(0, 77)}...` : value}'`;
}

/** The settings as a Markdown table (docs/operations.md holds it between markers). */
export function settingsTable(settings: Setting<unknown>[]): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const rows = settings.map(
    (s) =>
      `| \`${s.name}\` | ${s.shownDefault ? (s.shownDefault.includes(' ') ? s.shownDefault : `\`${s.shownDefault}\``) : '—'} | ${cell(s.form)} | ${cell(s.meaning)} |`,
  );
  return ['| variable | default | accepted | meaning |', '| --- | --- | --- | --- |', ...rows].join('\n');
}
