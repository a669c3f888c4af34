import { ApiError, VALIDATION_FAILED } from '#des/platform';

const UNITS: Record<string, number> = {
  minute: 60,
  hour: 3600,
  day: 86_400,
  week: 604_800,
  month: 2_592_000,
};

/**
 * A snapshot reference as the Kosli CLI puts it in a path, in this service's
 * form (see parseSnapshotRef): `-1`; `N` or `#N`; `~N`, or `-(N+1)` as its
 * `assert snapshot` sends it; `@{YYYY-MM-DDTHH:MM:SS}` (UTC) or
 * `@{N.<minutes|hours|days|weeks|months>.ago}`, taken at `now` (UNIX seconds).
 */
export function fromKosliRef(raw: string, now: number): string {
  const back = /^-(\d{1,10})$/.exec(raw);
  if (back && Number(back[1]) > 1) return `~${Number(back[1]) - 1}`;
  if (raw.startsWith('#')) return raw.slice(1);
  const instant = /^@\{(.+)\}$/.exec(raw);
  if (!instant) return raw;
  const ago = /^(\d{1,6})\.(minute|hour|day|week|month)s?\.ago$/.exec(instant[1]);
  if (ago) return `@${now - Number(ago[1]) * UNITS[ago[2]]}`;
  const at = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(instant[1]) ? instant[1] : `${instant[1]}Z`);
  if (Number.isNaN(at)) {
    throw new ApiError(400, VALIDATION_FAILED, {
      index: 'a time is @{YYYY-MM-DDTHH:MM:SS} (UTC) or @{N.<minutes|hours|days|weeks|months>.ago}',
    });
  }
  return `@${at / 1000}`;
}

/** `env`, `env#N`, `env~N` or `env@{…}`: the environment, and the reference in the CLI's form. */
export function splitSnappish(snappish: string): { env: string; ref: string } {
  const match = /^([^#~@]+)([#~@].*)?$/.exec(snappish);
  if (!match) throw new ApiError(400, VALIDATION_FAILED, { snappish: `'${snappish}' names no environment` });
  return { env: match[1], ref: match[2] ?? '-1' };
}
