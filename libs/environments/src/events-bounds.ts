/** `log environment --start/--end`: a snapshot (`N`, `~N` before the latest) or an instant (`NOW`, `1hour` ago …). */
export const EVENTS_BOUND = /^(\d+|~\d+|NOW|\d{1,6}\s*(second|minute|hour|day|week|month)s?)$/;
export const EVENTS_BOUND_MESSAGE =
  'is a snapshot number N, ~N (N before the latest), NOW, or a time ago as N<second|minute|hour|day|week|month>[s] (1hour, 2days)';

const UNITS: Record<string, number> = {
  second: 1,
  minute: 60,
  hour: 3_600,
  day: 86_400,
  week: 604_800,
  month: 2_592_000,
};

export type EventsBound = { snapshot: number } | { at: number };

/** One end of the range, with `latest` the latest snapshot's number and `now` in UNIX seconds. */
export function eventsBound(text: string, latest: number, now: number): EventsBound {
  if (/^\d+$/.test(text)) return { snapshot: Number(text) };
  if (text.startsWith('~')) return { snapshot: latest - Number(text.slice(1)) };
  if (text === 'NOW') return { at: now };
  const ago = /^(\d+)\s*(second|minute|hour|day|week|month)s?$/.exec(text)!;
  return { at: now - Number(ago[1]) * UNITS[ago[2]] };
}
