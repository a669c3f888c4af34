import { ApiError, VALIDATION_FAILED } from '#des/platform';
import { SNAPSHOT_REF_FORMS } from '#des/environments';

const UNITS: Record<string, number> = {
  minute: 60,
  hour: 3600,
  day: 86_400,
  week: 604_800,
  month: 2_592_000,
};

const UTC_TIME =
  '(19[89]\\d|2\\d{3})-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])T([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d{1,9})?)?([Zz]|[+-]\\d{2}:?\\d{2})?';
const AGO = '\\d{1,6}\\.(minute|hour|day|week|month)s?\\.ago';
/** The CLI's own forms: `-N`, `#N`, `@{<UTC time>}`, `@{N.<unit>.ago}`; this service's forms are taken too. */
const KOSLI_REF_FORMS = ['-[1-9]\\d{0,9}', '#[1-9]\\d{0,9}', `@\\{(${UTC_TIME}|${AGO})\\}`];

/** Every reference fromKosliRef takes, as the OpenAPI document states it (and the gate it checks). */
export const KOSLI_SNAPSHOT_REF_PATTERN = `^(${[...KOSLI_REF_FORMS, ...SNAPSHOT_REF_FORMS].join('|')})$`;
const KOSLI_SNAPSHOT_REF = new RegExp(KOSLI_SNAPSHOT_REF_PATTERN);

/**
 * A snapshot, as `diff snapshots` names it: an environment (a name without
 * `#`, `~` or `@`), then a reference in any form but a negative one, else
 * the latest.
 */
export const SNAPPISH_PATTERN = `^[a-zA-Z0-9][a-zA-Z0-9\\-_.]*(${[...KOSLI_REF_FORMS, ...SNAPSHOT_REF_FORMS]
  .filter((form) => /^[#~@]/.test(form))
  .join('|')})?$`;

const FORMS_MESSAGE =
  'a snapshot reference is -N (-1: the latest), N or #N, ~N, @{YYYY-MM-DDTHH:MM:SS} (UTC, or with an offset), @{N.<minutes|hours|days|weeks|months>.ago}, or @<UNIX seconds or ISO-8601>';

/**
 * A snapshot reference as the Kosli CLI puts it in a path, in this service's
 * form (see parseSnapshotRef): `-1`; `N` or `#N`; `~N`, or `-(N+1)` as its
 * `assert snapshot` sends it; `@{YYYY-MM-DDTHH:MM:SS}` (UTC) or
 * `@{N.<minutes|hours|days|weeks|months>.ago}`, taken at `now` (UNIX seconds).
 */
export function fromKosliRef(raw: string, now: number): string {
  if (!KOSLI_SNAPSHOT_REF.test(raw)) throw new ApiError(400, VALIDATION_FAILED, { index: FORMS_MESSAGE });
  const back = /^-(\d{1,10})$/.exec(raw);
  if (back && Number(back[1]) > 1) return `~${Number(back[1]) - 1}`;
  if (raw.startsWith('#')) return raw.slice(1);
  const instant = /^@\{(.+)\}$/.exec(raw);
  if (!instant) return raw;
  const ago = /^(\d{1,6})\.(minute|hour|day|week|month)s?\.ago$/.exec(instant[1]);
  // Further back than 1970 is the start of time: no snapshot is older.
  if (ago) return `@${Math.max(0, now - Number(ago[1]) * UNITS[ago[2]])}`;
  // The pattern admits only times Date.parse reads (days past a month's end roll over, as it does).
  const at = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(instant[1]) ? instant[1] : `${instant[1]}Z`);
  return `@${at / 1000}`;
}

/** `env`, `env#N`, `env~N` or `env@{…}`: the environment, and the reference in the CLI's form. */
export function splitSnappish(snappish: string): { env: string; ref: string } {
  const match = /^([^#~@]+)([#~@].*)?$/.exec(snappish);
  if (!match) throw new ApiError(400, VALIDATION_FAILED, { snappish: `'${snappish}' names no environment` });
  return { env: match[1], ref: match[2] ?? '-1' };
}
