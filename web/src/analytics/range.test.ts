import { describe, expect, it } from 'vitest';
import { addDays, defaultRange, pointLabel, rangeFromSearch, rangeProblem, rangeQuery, rangeToSearch } from './range';

describe('report range', () => {
  it('defaults to the 30 days up to today, by week', () => {
    expect(defaultRange('2026-03-30')).toEqual({ from: '2026-03-01', to: '2026-03-30', interval: 'week' });
  });

  it('sends the last picked day whole: dateTo is the next midnight (exclusive in the API)', () => {
    expect(rangeQuery({ from: '2026-02-01', to: '2026-02-28', interval: 'day' })).toEqual({ dateFrom: '2026-02-01', dateTo: '2026-03-01' });
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(rangeQuery({ from: '2026-05-05', to: '2026-05-05', interval: 'day' })).toEqual({ dateFrom: '2026-05-05', dateTo: '2026-05-06' });
  });

  it('reads the range from the address and falls back part by part', () => {
    const search = new URLSearchParams({ from: '2026-01-10', to: '2026-02-30', interval: 'fortnight' });
    expect(rangeFromSearch(search, '2026-03-30')).toEqual({ from: '2026-01-10', to: '2026-03-30', interval: 'week' });
    const round = { from: '2025-12-01', to: '2026-01-31', interval: 'month' as const };
    expect(rangeFromSearch(rangeToSearch(round), '2026-03-30')).toEqual(round);
  });

  it('says what the API would refuse before asking it', () => {
    expect(rangeProblem({ from: '2026-03-02', to: '2026-03-01', interval: 'day' })).toMatch(/after the end/);
    expect(rangeProblem({ from: '2026-03-01', to: '2026-03-01', interval: 'day' })).toBeNull();
    expect(rangeProblem({ from: '2010-01-01', to: '2026-03-01', interval: 'month' })).toMatch(/ten years/);
    expect(rangeProblem({ from: '', to: '2026-03-01', interval: 'month' })).toMatch(/both dates/);
  });

  it('labels points by their first day, months by month', () => {
    expect(pointLabel('2026-03-09T00:00:00.000Z', 'week')).toBe('03-09');
    expect(pointLabel('2026-03-01T00:00:00.000Z', 'month')).toBe('2026-03');
  });
});
