import { useId } from 'react';
import { axis, bandPath, colourOf, linePath, stack, totals } from './scale';
import { t } from '../../i18n';

export interface Series {
  name: string;
  values: number[];
}

interface Props {
  title: string;
  /** One label per point, in order. */
  labels: string[];
  /** line: each series on its own; area: stacked bands, the first series at the bottom. */
  kind: 'line' | 'area';
  series: Series[];
}

const W = 720;
const H = 240;
const M = { top: 12, right: 12, bottom: 28, left: 40 };

/**
 * A line or stacked-area chart in SVG. Screen readers get the title and a data table (the same
 * numbers), so nothing is only in the picture.
 */
export function SeriesChart({ title, labels, kind, series }: Props) {
  const id = useId();
  const peak = kind === 'area' ? Math.max(0, ...totals(series.map((s) => s.values))) : Math.max(0, ...series.flatMap((s) => s.values));
  const { top, ticks } = axis(peak);
  const n = labels.length;
  const x = (i: number) => M.left + (n <= 1 ? (W - M.left - M.right) / 2 : (i * (W - M.left - M.right)) / (n - 1));
  const y = (v: number) => H - M.bottom - (v / top) * (H - M.top - M.bottom);
  const every = Math.max(1, Math.ceil(n / 8));
  const bands = kind === 'area' ? stack(series.map((s) => s.values)) : [];
  return (
    <figure className="chart" aria-labelledby={`${id}-title`}>
      <figcaption id={`${id}-title`}>{title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-title`} className="chart-svg">
        {ticks.map((t) => (
          <g key={t}>
            <line x1={M.left} x2={W - M.right} y1={y(t)} y2={y(t)} className="chart-rule" />
            <text x={M.left - 6} y={y(t) + 4} textAnchor="end" className="chart-tick">
              {t}
            </text>
          </g>
        ))}
        {labels.map((label, i) =>
          i % every === 0 ? (
            <text key={i} x={x(i)} y={H - 8} textAnchor={i === n - 1 && n > 1 ? 'end' : 'middle'} className="chart-tick">
              {label}
            </text>
          ) : null,
        )}
        {kind === 'area'
          ? bands.map((band, s) => <path key={s} d={bandPath(band, x, y)} fill={colourOf(s)} fillOpacity={0.75} stroke={colourOf(s)} />)
          : series.map((s, si) => (
              <g key={s.name}>
                <path d={linePath(s.values, x, y)} fill="none" stroke={colourOf(si)} strokeWidth={2} />
                {s.values.map((v, i) => (
                  <circle key={i} cx={x(i)} cy={y(v)} r={3} fill={colourOf(si)} />
                ))}
              </g>
            ))}
      </svg>
      <ul className="chart-legend">
        {series.map((s, i) => (
          <li key={s.name}>
            <span className="chart-swatch" style={{ background: colourOf(i) }} aria-hidden="true" /> {s.name}
          </li>
        ))}
      </ul>
      <details className="chart-data">
        <summary>{t('charts.dataTable')}</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">{t('range.from')}</th>
              {series.map((s) => (
                <th key={s.name} scope="col">
                  {s.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {labels.map((label, i) => (
              <tr key={i}>
                <th scope="row">{label}</th>
                {series.map((s) => (
                  <td key={s.name}>{s.values[i]}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
