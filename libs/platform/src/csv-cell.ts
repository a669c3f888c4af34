/** Spreadsheets run a cell that starts like a formula; such cells are neutralised with a leading quote. */
export function safeCell(value: unknown): string | number {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  const text = Array.isArray(value) ? value.join(';') : String(value);
  return /^[=+\-@\t\r|%]/.test(text) ? `'${text}` : text;
}
