import type { ReactNode } from 'react';
import type { Member } from '../api/client';
import type { Metric } from './queries';
import { t, type MessageKey } from '../i18n';

export interface Tile {
  label: string;
  value: number | string;
  hint?: string;
  /** Opens the tasks behind the number. */
  onDrill?: () => void;
}

export const hours = (h: number) => t('numbers.hours', { n: Number(h.toFixed(1)) });
export const days = (d: number) => t('numbers.days', { n: Number(d.toFixed(1)) });

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
      {tiles.map((tile) => (
        <li key={tile.label} className="tile">
          <span className="tile-label">{tile.label}</span>
          {tile.onDrill ? (
            <button type="button" className="link-button tile-value" onClick={tile.onDrill} aria-label={t('numbers.tileDrill', { label: tile.label, value: tile.value })}>
              {tile.value}
            </button>
          ) : (
            <span className="tile-value">{tile.value}</span>
          )}
          {tile.hint && <span className="tile-hint muted">{tile.hint}</span>}
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
const STATUS: MessageKey[] = ['status.0', 'status.1', 'status.2', 'status.3'];

/** A TaskReport's numbers; `drill` (where a route lists the tasks) makes them buttons. */
export function taskReportTiles(report: TaskReport, drill?: (metric: Metric, title: string) => void): Tile[] {
  const on = (metric: Metric, title: string) => (drill ? () => drill(metric, title) : undefined);
  const byStatus = report.byStatus.map((s) => `${STATUS[s.status] ? t(STATUS[s.status]!) : s.status} ${s.count}`).join(' · ');
  return [
    { label: t('numbers.tasksNow'), value: report.total, hint: byStatus, onDrill: on('total', t('numbers.tasksNow')) },
    { label: t('numbers.created'), value: report.created, onDrill: on('created', t('numbers.createdInPeriod')) },
    { label: t('numbers.finished'), value: report.finished, onDrill: on('finished', t('numbers.finishedInPeriod')) },
    { label: t('numbers.overdue'), value: report.overdue, onDrill: on('overdue', t('numbers.overdue')) },
    { label: t('numbers.planned'), value: hours(report.planTime) },
    { label: t('numbers.spent'), value: hours(report.factTime), hint: t('numbers.spentHint') },
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
  if (rows.length === 0) return <p className="muted">{t('numbers.noAssigned')}</p>;
  const name = (id: number) => members.get(id)?.name ?? t('numbers.userN', { id });
  const cell = (row: AssigneeRow, metric: Metric, value: number, what: string, whatLower: string) =>
    drill && value > 0 ? (
      <button type="button" className="link-button" onClick={() => drill(row.userId, metric, `${what}: ${name(row.userId)}`)} aria-label={t('numbers.cellDrill', { value, what: whatLower, name: name(row.userId) })}>
        {value}
      </button>
    ) : (
      value
    );
  return (
    <table className="report-table">
      <caption>{t('numbers.byAssignee')}</caption>
      <Head columns={[t('numbers.column.member'), t('numbers.column.tasks'), t('numbers.column.done'), t('numbers.overdue'), t('numbers.planned'), t('numbers.spent')]} />
      <tbody>
        {rows.map((r) => (
          <tr key={r.userId}>
            <th scope="row">{name(r.userId)}</th>
            <td>{cell(r, 'total', r.total, t('numbers.column.tasks'), t('numbers.tasksLower'))}</td>
            <td>{r.done}</td>
            <td>{cell(r, 'overdue', r.overdue, t('numbers.overdue'), t('numbers.overdueLower'))}</td>
            <td>{hours(r.planTime)}</td>
            <td>{hours(r.factTime)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
