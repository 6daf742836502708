import { stringify } from 'csv-stringify/sync';

// OWASP's CSV injection rule: a cell a spreadsheet would run as a formula is made plain text.
const FORMULA = /^[=+\-@\t\r]/;
const neutral = (value: string) => (FORMULA.test(value) ? `'${value}` : value);

/** Rows (header first) as a CSV document with a BOM, so spreadsheets read it as UTF-8. */
export function toCsv(rows: unknown[][]): string {
  return `\uFEFF${stringify(rows, { cast: { string: neutral } })}`;
}
