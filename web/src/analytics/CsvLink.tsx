import { DownloadLink } from '../common/files';
import { rangeQuery, type Range } from './range';

/** `path` with the range, any extra parameters and `format=csv`: the same report as a spreadsheet. */
export function csvUrl(path: string, range: Range, extra: Record<string, string | number> = {}, withInterval = false): string {
  const query = new URLSearchParams({ ...rangeQuery(range), ...(withInterval ? { interval: range.interval } : {}) });
  for (const [k, v] of Object.entries(extra)) query.set(k, String(v));
  query.set('format', 'csv');
  return `${path}?${query}`;
}

/** A report as CSV: downloaded with the session header and saved under the API's name. */
export function CsvLink({ href, label = 'Download CSV' }: { href: string; label?: string }) {
  return (
    <DownloadLink href={href} name="report.csv" accept="text/csv" className="csv-link" testId="csv-link">
      {label}
    </DownloadLink>
  );
}
