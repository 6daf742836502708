const UNITS: Array<[limit: number, seconds: number, unit: string]> = [
  [60, 1, 's'],
  [3600, 60, 'min'],
  [86_400, 3600, 'h'],
  [7 * 86_400, 86_400, 'd'],
];

/** "5 min ago" for recent moments, the date for older ones (lists of notifications, deliveries, tokens). */
export function ago(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 10) return 'just now';
  for (const [limit, size, unit] of UNITS) if (seconds < limit) return `${Math.floor(seconds / size)} ${unit} ago`;
  return new Date(iso).toLocaleDateString();
}

/** A moment as the reader's local date and time, for tooltips and tables. */
export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');
