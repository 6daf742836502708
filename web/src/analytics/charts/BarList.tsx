import { colourOf } from './scale';
import { t, tn } from '../../i18n';

export interface Bar {
  key: string | number;
  label: string;
  value: number;
  /** Shown after the number (an average, a share). */
  note?: string;
  /** Opens the tasks behind the number. */
  onDrill?: () => void;
}

/** Horizontal bars in HTML: the numbers are real text and, where they have tasks behind them, buttons. */
export function BarList({ title, bars, unit }: { title: string; bars: Bar[]; unit?: string }) {
  const max = Math.max(1, ...bars.map((b) => b.value));
  return (
    <figure className="chart bar-list">
      <figcaption>{title}</figcaption>
      <ul data-testid="bar-list">
        {bars.map((b, i) => (
          <li key={b.key} className="bar-row">
            <span className="bar-label">{b.label}</span>
            <span className="bar-track" aria-hidden="true">
              <span className="bar-fill" style={{ width: `${(b.value / max) * 100}%`, background: colourOf(i) }} />
            </span>
            {b.onDrill ? (
              <button type="button" className="link-button bar-value" onClick={b.onDrill} aria-label={unit ? t('charts.barDrillUnit', { value: b.value, unit, label: b.label }) : tn('charts.barDrill', b.value, { label: b.label })} data-value={b.value}>
                {b.value}
              </button>
            ) : (
              <span className="bar-value" data-value={b.value}>
                {b.value}
              </span>
            )}
            {b.note && <span className="muted bar-note">{b.note}</span>}
          </li>
        ))}
      </ul>
    </figure>
  );
}
