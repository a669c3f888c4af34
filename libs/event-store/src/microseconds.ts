/** Wall-clock now in whole microseconds since the epoch. */
export function nowMicros(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}

/** Microseconds → UNIX seconds with a fractional part (the API's timestamp format). */
export function microsToSeconds(micros: number): number {
  return micros / 1_000_000;
}

export function secondsToMicros(seconds: number): number {
  return Math.round(seconds * 1_000_000);
}
