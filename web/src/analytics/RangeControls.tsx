import { useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { INTERVALS, rangeFromSearch, rangeProblem, rangeToSearch, type Interval, type Range } from './range';
import { t } from '../i18n';

const today = () => new Date().toISOString().slice(0, 10);

/** The screen's range, kept in its address; the extra parameters of the address (a drill-down) stay. */
export function useRange(): [Range, (next: Range) => void] {
  const [search, setSearch] = useSearchParams();
  const range = useMemo(() => rangeFromSearch(search, today()), [search]);
  const set = (next: Range) =>
    setSearch(
      (old) => {
        const merged = new URLSearchParams(old);
        for (const [k, v] of rangeToSearch(next)) merged.set(k, v);
        return merged;
      },
      { replace: true },
    );
  return [range, set];
}

/** From and to (both days included) and, for series, the interval of a point. */
export function RangeControls({ range, onChange, withInterval = true }: { range: Range; onChange: (r: Range) => void; withInterval?: boolean }) {
  const problem = rangeProblem(range);
  return (
    <fieldset className="range-controls">
      <legend className="sr-only">{t('range.period')}</legend>
      <label>
        {t('range.from')}
        <input type="date" value={range.from} max={range.to} required onChange={(e) => e.target.value && onChange({ ...range, from: e.target.value })} />
      </label>
      <label>
        {t('range.to')}
        <input type="date" value={range.to} min={range.from} required onChange={(e) => e.target.value && onChange({ ...range, to: e.target.value })} />
      </label>
      {withInterval && (
        <label>
          {t('range.interval')}
          <select value={range.interval} onChange={(e) => onChange({ ...range, interval: e.target.value as Interval })}>
            {INTERVALS.map((i) => (
              <option key={i} value={i}>
                {i === 'day' ? t('range.day') : i === 'week' ? t('range.week') : t('range.month')}
              </option>
            ))}
          </select>
        </label>
      )}
      {problem && (
        <span className="form-error" role="alert">
          {problem}
        </span>
      )}
    </fieldset>
  );
}
