/** What an import created (per table and kind) and what it left out or changed, and why. */
export interface PortabilityReport {
  counts: Record<string, number>;
  skipped: { reason: string; count: number }[];
}

export class Report {
  private readonly counts: Record<string, number> = {};
  private readonly skipped = new Map<string, number>();

  count(what: string, n: number): void {
    this.counts[what] = (this.counts[what] ?? 0) + n;
  }

  skip(reason: string, n: number): void {
    this.skipped.set(reason, (this.skipped.get(reason) ?? 0) + n);
  }

  toJSON(): PortabilityReport {
    return { counts: { ...this.counts }, skipped: [...this.skipped].map(([reason, count]) => ({ reason, count })) };
  }
}
