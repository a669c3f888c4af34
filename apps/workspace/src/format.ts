/** UNIX seconds as the viewer reads them: their own time zone, with UTC in the title. */
export function when(seconds: number | null | undefined): { text: string; utc: string } | null {
  if (seconds === null || seconds === undefined) return null;
  const date = new Date(seconds * 1000);
  return { text: date.toLocaleString(), utc: `${date.toISOString().replace('.000Z', 'Z')}` };
}

/** UNIX seconds as ISO-8601 in UTC to the microsecond: the `?at=` of the page at exactly that instant. */
export function isoAt(seconds: number): string {
  const micros = Math.round(seconds * 1e6);
  const whole = Math.floor(micros / 1e6);
  const fraction = String(micros - whole * 1e6).padStart(6, '0');
  return new Date(whole * 1000).toISOString().replace(/\.\d{3}Z$/, `.${fraction}Z`);
}
