import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { spaceQuery } from '../api/queries';
import { useMembers } from '../common/useMembers';
import { BarList } from './charts/BarList';
import { SeriesChart } from './charts/SeriesChart';
import { CsvLink, csvUrl } from './CsvLink';
import { DrillDown, type Drill } from './DrillDown';
import { AssigneeTable, days, taskReportTiles, Tiles, type Tile } from './Numbers';
import { flowQuery, projectDrillQuery, projectReportQuery, projectTaskReportQuery, type ProjectDrill } from './queries';
import { pointLabel, rangeProblem } from './range';
import { RangeControls, useRange } from './RangeControls';
import { canSeeProjectReport } from '../common/roles';
import { t } from '../i18n';
import '../common/screens.css';
import './analytics.css';

const spread = (s: { median: number; p85: number } | null) => (s ? `${days(s.median)}` : '—');

/** A project's report, its task numbers and cumulative flow for a period; every count lists its tasks. */
export function ProjectReportPage() {
  const projectId = Number(useParams().projectId);
  const [range, changeRange] = useRange();
  const [drill, setDrill] = useState<Drill | null>(null);
  // An open task list belongs to the range it was opened for.
  const setRange = (next: typeof range) => {
    setDrill(null);
    changeRange(next);
  };
  const project = useQuery({ queryKey: ['analytics', 'project-info', projectId], queryFn: () => call(api.GET('/projects/{projectId}', { params: { path: { projectId } } })) });
  const space = useQuery({ ...spaceQuery(project.data?.spaceId ?? 0), enabled: project.data !== undefined });
  const allowed = canSeeProjectReport(space.data?.role);
  const enabled = allowed && !rangeProblem(range);
  const report = useQuery({ ...projectReportQuery(projectId, range), enabled });
  const tasks = useQuery({ ...projectTaskReportQuery(projectId, range), enabled });
  const flow = useQuery({ ...flowQuery(projectId, range), enabled });
  const members = useMembers();

  const error = project.error ?? space.error ?? report.error ?? tasks.error ?? flow.error;
  if (!project.data || !space.data) return error ? <p className="page-error" role="alert">{error.message}</p> : <p className="loading">{t('reports.loadingReport')}</p>;
  const stages = new Map(project.data.stages.map((s) => [s.id, s.name]));
  const stageName = (id: number) => stages.get(id) ?? t('reports.columnN', { id });
  const open = (title: string, d: ProjectDrill) => setDrill({ title, query: projectDrillQuery(projectId, range, d) });
  const path = `/analytics/projects/${projectId}`;
  const tiles: Tile[] = tasks.data ? taskReportTiles(tasks.data, (metric, title) => open(title, { metric })) : [];
  if (report.data) {
    tiles.push(
      { label: t('reports.throughput'), value: t('reports.perWeek', { n: Number(report.data.throughput.toFixed(2)) }), hint: t('reports.finishedPerWeek') },
      { label: t('reports.leadTime'), value: spread(report.data.leadTimeDays), hint: report.data.leadTimeDays ? t('reports.medianP85', { p85: days(report.data.leadTimeDays.p85) }) : t('reports.nothingFinished') },
      { label: t('reports.cycleTime'), value: spread(report.data.cycleTimeDays), hint: report.data.cycleTimeDays ? t('reports.medianP85', { p85: days(report.data.cycleTimeDays.p85) }) : t('reports.nothingFinished') },
    );
  }
  return (
    <div className="screen analytics">
      <header className="screen-header">
        <h1>{t('reports.reportOf', { name: project.data.name })}</h1>
        <Link to={`/projects/${projectId}`}>{t('reports.openBoard')}</Link>
        <RangeControls range={range} onChange={setRange} />
      </header>
      {!allowed && <p className="notice">{t('reports.projectNotAllowed')}</p>}
      {error && <p className="notice error" role="alert">{error.message}</p>}
      {allowed && (
        <>
          <p className="row csv-links">
            <CsvLink href={csvUrl(`${path}/report`, range)} label={t('reports.csv.report')} />
            <CsvLink href={csvUrl(`${path}/task-report`, range)} label={t('reports.csv.taskNumbers')} />
            <CsvLink href={csvUrl(`${path}/flow`, range, {}, true)} label={t('reports.csv.flow')} />
          </p>
          {drill && <DrillDown drill={drill} onClose={() => setDrill(null)} />}
          <Tiles tiles={tiles} label={t('reports.keyNumbersLabel')} />
          <div className="chart-grid">
            {report.data && (
              <BarList
                title={t('reports.tasksPerColumn')}
                bars={report.data.stages.map((s) => ({
                  key: s.stageId,
                  label: stageName(s.stageId),
                  value: s.count,
                  note: s.avgDaysInStage === null ? undefined : t('reports.avgInColumn', { days: days(s.avgDaysInStage) }),
                  onDrill: () => open(t('reports.tasksIn', { column: stageName(s.stageId) }), { metric: 'total', stageId: s.stageId }),
                }))}
              />
            )}
            {flow.data && (
              <SeriesChart
                title={t('reports.cumulativeFlow')}
                kind="area"
                labels={flow.data.map((p) => pointLabel(p.from, range.interval))}
                series={[...(flow.data[0]?.stages ?? [])].reverse().map((s) => ({ name: stageName(s.stageId), values: flow.data.map((p) => p.stages.find((x) => x.stageId === s.stageId)?.count ?? 0) }))}
              />
            )}
          </div>
          {report.data && <AssigneeTable rows={report.data.byAssignee} members={members} drill={(responsibleId, metric, title) => open(title, { metric, responsibleId })} />}
        </>
      )}
    </div>
  );
}
