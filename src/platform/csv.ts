// OWASP's CSV injection rule: a cell a spreadsheet would run as a formula is made plain text.
const FORMULA = /^[=+\-@\t\r]/;
const neutral = (value: string) => (FORMULA.test(value) ? `'${value}` : value);

/** Rows (header first) as a CSV document with a BOM, so spreadsheets read it as UTF-8. */
export async function toCsv(rows: unknown[][]): Promise<string> {
  // Loaded by the first CSV answer, not at start (issue 42).
  const { stringify } = await import('csv-stringify/sync');
  return `\uFEFF${stringify(rows, { cast: { string: neutral } })}`;
}
