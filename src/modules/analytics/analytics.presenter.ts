import { toCsv } from '../../platform/csv.js';
import type { TaskReportDto } from './analytics.schemas.js';

/** A TaskReport as CSV: a first row for the whole scope, then one row per assignee. */
export function taskReportCsv(r: TaskReportDto): string {
  const status = (s: number) => r.byStatus.find((b) => b.status === s)?.count ?? 0;
  return toCsv([
    ['Row', 'User', 'Total', 'In work', 'Done', 'Rejected', 'Needs attention', 'Overdue', 'Created', 'Finished', 'Plan hours', 'Fact hours'],
    ['all', '', r.total, status(0), status(1), status(2), status(3), r.overdue, r.created, r.finished, r.planTime, r.factTime],
    ...r.byAssignee.map((a) => ['assignee', a.userId, a.total, '', a.done, '', '', a.overdue, '', '', a.planTime, a.factTime]),
  ]);
}
