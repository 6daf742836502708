import type { ReactNode } from 'react';
import type { Member } from '../api/client';
import type { Metric } from './queries';

export interface Tile {
  label: string;
  value: number | string;
  hint?: string;
  /** Opens the tasks behind the number. */
  onDrill?: () => void;
}

export const hours = (h: number) => `${Number(h.toFixed(1))} h`;
export const days = (d: number) => `${Number(d.toFixed(1))} d`;

/** A report table's column headings. */
export function Head({ columns }: { columns: ReactNode[] }) {
  return (
    <thead>
      <tr>
        {columns.map((c, i) => (
          <th key={i} scope="col">
            {c}
          </th>
        ))}
      </tr>
    </thead>
  );
}

/** A row of key numbers; those with tasks behind them are buttons that list them. */
export function Tiles({ tiles, label }: { tiles: Tile[]; label: string }) {
  return (
    <ul className="tiles" aria-label={label}>
      {tiles.map((t) => (
        <li key={t.label} className="tile">
          <span className="tile-label">{t.label}</span>
          {t.onDrill ? (
            <button type="button" className="link-button tile-value" onClick={t.onDrill} aria-label={`${t.label}: ${t.value}, list the tasks`}>
              {t.value}
            </button>
          ) : (
            <span className="tile-value">{t.value}</span>
          )}
          {t.hint && <span className="tile-hint muted">{t.hint}</span>}
        </li>
      ))}
    </ul>
  );
}

interface TaskReport {
  total: number;
  byStatus: Array<{ status: number; count: number }>;
  overdue: number;
  created: number;
  finished: number;
  planTime: number;
  factTime: number;
}
const STATUS = ['In work', 'Done', 'Rejected', 'Needs attention'];

/** A TaskReport's numbers; `drill` (where a route lists the tasks) makes them buttons. */
export function taskReportTiles(report: TaskReport, drill?: (metric: Metric, title: string) => void): Tile[] {
  const on = (metric: Metric, title: string) => (drill ? () => drill(metric, title) : undefined);
  const byStatus = report.byStatus.map((s) => `${STATUS[s.status] ?? s.status} ${s.count}`).join(' · ');
  return [
    { label: 'Tasks now', value: report.total, hint: byStatus, onDrill: on('total', 'Tasks now') },
    { label: 'Created', value: report.created, onDrill: on('created', 'Created in the period') },
    { label: 'Finished', value: report.finished, onDrill: on('finished', 'Finished in the period') },
    { label: 'Overdue', value: report.overdue, onDrill: on('overdue', 'Overdue') },
    { label: 'Planned', value: hours(report.planTime) },
    { label: 'Spent', value: hours(report.factTime), hint: 'recorded in the period' },
  ];
}

interface AssigneeRow {
  userId: number;
  total: number;
  done: number;
  overdue: number;
  planTime: number;
  factTime: number;
}

/** Numbers per assignee; with `drill`, a member's total and overdue list their tasks. */
export function AssigneeTable({ rows, members, drill }: { rows: AssigneeRow[]; members: Map<number, Member>; drill?: (userId: number, metric: Metric, title: string) => void }) {
  if (rows.length === 0) return <p className="muted">No assigned tasks.</p>;
  const name = (id: number) => members.get(id)?.name ?? `User ${id}`;
  const cell = (row: AssigneeRow, metric: Metric, value: number, what: string) =>
    drill && value > 0 ? (
      <button type="button" className="link-button" onClick={() => drill(row.userId, metric, `${what}: ${name(row.userId)}`)} aria-label={`${value} ${what.toLowerCase()} of ${name(row.userId)}: list them`}>
        {value}
      </button>
    ) : (
      value
    );
  return (
    <table className="report-table">
      <caption>By assignee</caption>
      <Head columns={['Member', 'Tasks', 'Done', 'Overdue', 'Planned', 'Spent']} />
      <tbody>
        {rows.map((r) => (
          <tr key={r.userId}>
            <th scope="row">{name(r.userId)}</th>
            <td>{cell(r, 'total', r.total, 'Tasks')}</td>
            <td>{r.done}</td>
            <td>{cell(r, 'overdue', r.overdue, 'Overdue')}</td>
            <td>{hours(r.planTime)}</td>
            <td>{hours(r.factTime)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
