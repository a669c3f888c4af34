/**
 * Instants as callers write them: UNIX seconds (`1795459440`,
 * `1795459440.123456`) or ISO-8601 with an offset (`2026-11-23T18:44:00Z`,
 * `2026-11-23T19:44:00.5+01:00`), to the microsecond. Both name the same
 * instant; answers keep UNIX seconds (the spec's numbers).
 */
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

/** UNIX seconds, as written: up to 12 digits, and a fraction. */
export const UNIX_INSTANT_FORM = '\\d{1,12}(\\.\\d{1,20})?';
const UNIX = new RegExp(`^${UNIX_INSTANT_FORM}$`);
const YEAR = '(197[1-9]|19[89]\\d|[2-9]\\d{3})';
/** Years from 1971 with a 29 February. */
const LEAP_YEAR =
  '(19(7[26]|8[048]|9[26])|[2-9]\\d(0[48]|[2468][048]|[13579][26])|([2468][048]|[3579][26])00)';
/** A day its month has: 1–28 in any, 29–30 in all but February, 31 in seven, 29 February in a leap year. */
const DATE = `(${YEAR}-((0[1-9]|1[0-2])-(0[1-9]|1\\d|2[0-8])|(0[13-9]|1[0-2])-(29|30)|(0[13578]|1[02])-31)|${LEAP_YEAR}-02-29)`;
/** ISO-8601 with an offset, from 1971 (no earlier instant is after 1970 whatever its offset). */
export const ISO_INSTANT_FORM = `${DATE}[Tt ]([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d([.,]\\d{1,9})?)?([Zz]|[+-]([01]\\d|2[0-3]):?[0-5]\\d)`;
/** Every instant parseInstant takes, as one pattern: the OpenAPI document states it, and parseInstant checks it first. */
export const INSTANT_PATTERN = `^(${UNIX_INSTANT_FORM}|${ISO_INSTANT_FORM})$`;
const INSTANT = new RegExp(INSTANT_PATTERN);

/** How an instant is written, for error messages. */
export const INSTANT_FORMS =
  'UNIX seconds (e.g. 1795459440) or an ISO-8601 date-time with an offset (e.g. 2026-11-23T18:44:00Z)';

/** The instant as UNIX seconds (microsecond precision); undefined when `raw` is neither form. */
export function parseInstant(raw: string): number | undefined {
  if (!INSTANT.test(raw)) return undefined;
  if (UNIX.test(raw)) return Number(raw);
  // The pattern admitted only real dates and times, offsets within a day, and years from 1971.
  const m = ISO.exec(raw)!;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((v) => Number(v ?? 0));
  const wholeMs = Date.UTC(year, month - 1, day, hour, minute, second);
  const offsetMinutes = m[8] ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]));
  const micros = Number((m[7] ?? '').padEnd(6, '0').slice(0, 6));
  const seconds = wholeMs / 1000 - offsetMinutes * 60;
  return (seconds * 1_000_000 + micros) / 1_000_000;
}

/** An instant (UNIX seconds) as ISO-8601 UTC with microseconds: `2026-11-23T18:43:53.123456Z`. */
export function isoMicros(seconds: number): string {
  const micros = Math.round(seconds * 1_000_000);
  const whole = Math.floor(micros / 1_000_000);
  const fraction = String(micros - whole * 1_000_000).padStart(6, '0');
  return `${new Date(whole * 1000).toISOString().slice(0, 19)}.${fraction}Z`;
}

/** An instant (UNIX seconds) as its exact decimal, to the microsecond: `1795545833.123456`. */
export function unixMicros(seconds: number): string {
  const micros = Math.round(seconds * 1_000_000);
  const whole = Math.floor(micros / 1_000_000);
  return `${whole}.${String(micros - whole * 1_000_000).padStart(6, '0')}`;
}
