import { Type } from 'typebox';
import { AppError } from '../../platform/errors.js';

const DAY_MS = 86_400_000;

/** An ISO date (a UTC day, from its midnight) or an ISO date-time. */
export const DateOrTime = (description: string) =>
  Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,6})?)?(Z|[+-]\\d{2}:\\d{2}))?$', description, examples: ['2026-11-01'] });

export const RANGE_DEFINITION =
  'In range: `dateFrom ≤ t < dateTo` (ISO dates are UTC days from their midnight, or ISO date-times; default the 30 days before now).';

export interface Range {
  from: Date;
  to: Date;
}

function parse(value: string, field: string): Date {
  const at = new Date(value.length === 10 ? `${value}T00:00:00Z` : value);
  // Date rolls 2026-02-30 over to March: the calendar day must exist as written.
  const [y, m, d] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  const calendar = new Date(Date.UTC(y, m - 1, d));
  if (Number.isNaN(at.getTime()) || calendar.getUTCMonth() !== m - 1 || calendar.getUTCDate() !== d) throw new AppError('VALIDATION_FAILED', `${field} is not a valid date`, [{ path: `/querystring/${field}`, message: 'not a valid date' }]);
  return at;
}

/** The report's range: given bounds, or the 30 days before now; an empty or reversed range is refused. */
export function rangeOf(q: { dateFrom?: string; dateTo?: string }, now = new Date()): Range {
  const to = q.dateTo ? parse(q.dateTo, 'dateTo') : now;
  const from = q.dateFrom ? parse(q.dateFrom, 'dateFrom') : new Date(to.getTime() - 30 * DAY_MS);
  if (from.getTime() >= to.getTime()) throw new AppError('VALIDATION_FAILED', 'dateFrom must be before dateTo', [{ path: '/querystring/dateFrom', message: 'must be before dateTo' }]);
  if (to.getTime() - from.getTime() > 3660 * DAY_MS) throw new AppError('VALIDATION_FAILED', 'a range spans at most ten years', [{ path: '/querystring/dateFrom', message: 'at most ten years before dateTo' }]);
  return { from, to };
}

/** The moment overdue is judged at: the end of the range, or now if that is earlier. */
export const judgedAt = (r: Range, now = new Date()): Date => (r.to.getTime() < now.getTime() ? r.to : now);
