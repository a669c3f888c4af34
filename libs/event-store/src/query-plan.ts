/**
 * Whether an SQLite query plan (the `detail` column of EXPLAIN QUERY PLAN,
 * one string a step) reaches the events table only through a range of an
 * index that starts with the stream name: then the rows it visits are the
 * index entries of that range, and none elsewhere in the log. A `SCAN events`
 * (the whole table, or a whole index) or a search on another column is not.
 */
export function searchesEventsByStream(plan: string[]): boolean {
  const steps = plan.filter((detail) => /^(SEARCH|SCAN) events\b/.test(detail));
  return (
    steps.length > 0 &&
    steps.every((detail) => /^SEARCH events USING (COVERING )?INDEX \S+ \(stream[=><]/.test(detail))
  );
}
