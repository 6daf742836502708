import { toCsv } from '../../platform/csv.js';
import type { TaskDto } from '../tasks/tasks.schemas.js';
import type { MemberReportRowDto, ProjectReportDto, SpaceAnalyticsDto, TaskReportDto } from './analytics.schemas.js';
import type { SeriesPointRow } from './series.service.js';

/** A TaskReport as CSV: a first row for the whole scope, then one row per assignee. */
export function taskReportCsv(r: TaskReportDto): Promise<string> {
  const status = (s: number) => r.byStatus.find((b) => b.status === s)?.count ?? 0;
  return toCsv([
    ['Row', 'User', 'Total', 'In work', 'Done', 'Rejected', 'Needs attention', 'Overdue', 'Created', 'Finished', 'Plan hours', 'Fact hours'],
    ['all', '', r.total, status(0), status(1), status(2), status(3), r.overdue, r.created, r.finished, r.planTime, r.factTime],
    ...r.byAssignee.map((a) => ['assignee', a.userId, a.total, '', a.done, '', '', a.overdue, '', '', a.planTime, a.factTime]),
  ]);
}

export const seriesCsv = (points: SeriesPointRow[]) =>
  toCsv([['From', 'Created', 'Finished', 'Overdue', 'Fact hours'], ...points.map((p) => [p.from, p.created, p.finished, p.overdue, p.factTime])]);

/** The series, then a blank line and the per-project table. */
export const spaceAnalyticsCsv = (a: SpaceAnalyticsDto) =>
  toCsv([
    ['From', 'Created', 'Finished', 'Overdue', 'Fact hours'],
    ...a.points.map((p) => [p.from, p.created, p.finished, p.overdue, p.factTime]),
    [],
    ['Project', 'Total', 'Done', 'Overdue'],
    ...a.byProject.map((p) => [p.projectId, p.total, p.done, p.overdue]),
  ]);

export const projectReportCsv = (r: ProjectReportDto) =>
  toCsv([
    ['Column', 'Tasks', 'Average days in column'],
    ...r.stages.map((s) => [s.stageId, s.count, s.avgDaysInStage ?? '']),
    [],
    ['Lead time median', 'Lead time p85', 'Cycle time median', 'Cycle time p85', 'Throughput per week', 'Overdue', 'Plan hours', 'Fact hours'],
    [r.leadTimeDays?.median ?? '', r.leadTimeDays?.p85 ?? '', r.cycleTimeDays?.median ?? '', r.cycleTimeDays?.p85 ?? '', r.throughput, r.overdue, r.planTime, r.factTime],
  ]);

export const flowCsv = (points: Array<{ from: string; stages: Array<{ stageId: number; count: number }> }>) =>
  toCsv([['From', ...(points[0]?.stages.map((s) => `Column ${s.stageId}`) ?? [])], ...points.map((p) => [p.from, ...p.stages.map((s) => s.count)])]);

export const memberReportCsv = (rows: MemberReportRowDto[]) =>
  toCsv([
    ['User', 'Assigned', 'Finished', 'Overdue', 'Plan hours', 'Fact hours', 'Last activity'],
    ...rows.map((r) => [r.userId, r.assigned, r.finished, r.overdue, r.planTime, r.factTime, r.lastActivityDate ?? '']),
  ]);

export const taskListCsv = (tasks: TaskDto[]) =>
  toCsv([
    ['Id', 'Name', 'Status', 'Importance', 'Created', 'Due', 'Plan hours'],
    ...tasks.map((t) => [t.id, t.name, t.status, t.importance, t.createdAt, t.dateEnd ?? t.dateEndWithoutTime ?? '', t.planTime]),
  ]);
