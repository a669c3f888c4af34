/** UNIX seconds as the viewer reads them: their own time zone, with UTC in the title. */
export function when(seconds: number | null | undefined): { text: string; utc: string } | null {
  if (seconds === null || seconds === undefined) return null;
  const date = new Date(seconds * 1000);
  return { text: date.toLocaleString(), utc: `${date.toISOString().replace('.000Z', 'Z')}` };
}
