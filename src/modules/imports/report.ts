/**
 * What an import did: counts per kind of thing created, and every reason something was left out or
 * changed, with how often it happened (one line per reason, not one per card).
 */
export interface ImportReport {
  counts: Record<string, number>;
  skipped: Array<{ reason: string; count: number }>;
}

export const emptyReport = (): ImportReport => ({ counts: {}, skipped: [] });

export function skip(report: ImportReport, reason: string, count = 1): void {
  if (count <= 0) return;
  const line = report.skipped.find((s) => s.reason === reason);
  if (line) line.count += count;
  else report.skipped.push({ reason, count });
}

export function add(report: ImportReport, kind: string, count = 1): void {
  report.counts[kind] = (report.counts[kind] ?? 0) + count;
}
