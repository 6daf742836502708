import type { MouseEvent } from 'react';
import { session } from '../api/client';
import { errorText, useToast } from '../common/toast';
import { rangeQuery, type Range } from './range';

/** `path` with the range, any extra parameters and `format=csv`: the same report as a spreadsheet. */
export function csvUrl(path: string, range: Range, extra: Record<string, string | number> = {}, withInterval = false): string {
  const query = new URLSearchParams({ ...rangeQuery(range), ...(withInterval ? { interval: range.interval } : {}) });
  for (const [k, v] of Object.entries(extra)) query.set(k, String(v));
  query.set('format', 'csv');
  return `${path}?${query}`;
}

const fileName = (disposition: string | null, fallback: string) => /filename="([^"]+)"/.exec(disposition ?? '')?.[1] ?? fallback;

/**
 * A download link. The session travels in a header (never in a URL or a cookie), so a plain link
 * would be refused: the click fetches the file with the header and saves it under the API's name.
 */
export function CsvLink({ href, label = 'Download CSV' }: { href: string; label?: string }) {
  const toast = useToast();
  async function download(event: MouseEvent<HTMLAnchorElement>) {
    event.preventDefault();
    try {
      const response = await fetch(href, { headers: { 'Service-Session': session.get() ?? '', accept: 'text/csv' } });
      if (!response.ok) throw new Error(((await response.json().catch(() => null)) as { detail?: string } | null)?.detail ?? `download failed (${response.status})`);
      const url = URL.createObjectURL(await response.blob());
      const a = document.createElement('a');
      a.href = url;
      a.download = fileName(response.headers.get('content-disposition'), 'report.csv');
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (err) {
      toast(errorText(err), 'error');
    }
  }
  return (
    <a href={href} className="csv-link" onClick={(e) => void download(e)} data-testid="csv-link">
      {label}
    </a>
  );
}
