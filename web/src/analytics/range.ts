import { t } from '../i18n/index.js';

export type Interval = 'day' | 'week' | 'month';
export const INTERVALS: readonly Interval[] = ['day', 'week', 'month'];

/** A report's period as people pick it: both days included (YYYY-MM-DD, UTC days as the API counts them). */
export interface Range {
  from: string;
  to: string;
  interval: Interval;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
const MAX_DAYS = 3660;

const dayOf = (at: Date) => at.toISOString().slice(0, 10);
const parseDay = (day: string) => (DAY.test(day) && dayOf(new Date(`${day}T00:00:00Z`)) === day ? new Date(`${day}T00:00:00Z`) : null);
export const addDays = (day: string, days: number) => dayOf(new Date(new Date(`${day}T00:00:00Z`).getTime() + days * DAY_MS));

/** The 30 days up to and including today, by week: what the API reports by default. */
export const defaultRange = (today: string): Range => ({ from: addDays(today, -29), to: today, interval: 'week' });

/** The range in a screen's address (so a reload, a drill-down and a shared link keep it); bad parts fall back. */
export function rangeFromSearch(search: URLSearchParams, today: string): Range {
  const fallback = defaultRange(today);
  const from = search.get('from');
  const to = search.get('to');
  const interval = search.get('interval') as Interval | null;
  return {
    from: from && parseDay(from) ? from : fallback.from,
    to: to && parseDay(to) ? to : fallback.to,
    interval: interval && INTERVALS.includes(interval) ? interval : fallback.interval,
  };
}

export const rangeToSearch = (r: Range) => new URLSearchParams({ from: r.from, to: r.to, interval: r.interval });

/** Why the API would refuse the range, said before asking it; null when it is fine. */
export function rangeProblem(r: Range): string | null {
  const from = parseDay(r.from);
  const to = parseDay(r.to);
  if (!from || !to) return t('range.problem.bothDates');
  if (from > to) return t('range.problem.order');
  if ((to.getTime() - from.getTime()) / DAY_MS + 1 > MAX_DAYS) return t('range.problem.tooLong');
  return null;
}

/** The API's query: `dateTo` is exclusive, so the last picked day ends at the next midnight. */
export const rangeQuery = (r: Range) => ({ dateFrom: r.from, dateTo: addDays(r.to, 1) });

/** A series point's label: the interval's first day (the first one is clipped to the range's start). */
export function pointLabel(from: string, interval: Interval): string {
  const day = from.slice(0, 10);
  if (interval === 'month') return day.slice(0, 7);
  return day.slice(5);
}
