import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { spaceProjectsQuery, spaceQuery } from '../api/queries';
import { CsvLink, csvUrl } from './CsvLink';
import { DrillDown, type Drill } from './DrillDown';
import { Head, taskReportTiles, Tiles } from './Numbers';
import { spaceAnalyticsQuery, spaceDrillQuery, spaceTaskReportQuery, type Metric } from './queries';
import { rangeProblem } from './range';
import { RangeControls, useRange } from './RangeControls';
import { TaskSeries } from './TaskSeries';
import { canSeeProjectReport, canSeeSpaceAnalytics } from '../common/roles';
import { t } from '../i18n';
import '../common/screens.css';
import './analytics.css';

/** A space's series and per-project numbers (space admins), and the way to each project's report (editors). */
export function SpaceAnalyticsPage() {
  const spaceId = Number(useParams().spaceId);
  const [range, changeRange] = useRange();
  const [drill, setDrill] = useState<Drill | null>(null);
  // An open task list belongs to the range it was opened for.
  const setRange = (next: typeof range) => {
    setDrill(null);
    changeRange(next);
  };
  const space = useQuery(spaceQuery(spaceId));
  const projects = useQuery(spaceProjectsQuery(spaceId));
  const admin = canSeeSpaceAnalytics(space.data?.role);
  const enabled = admin && !rangeProblem(range);
  const analytics = useQuery({ ...spaceAnalyticsQuery(spaceId, range), enabled });
  const report = useQuery({ ...spaceTaskReportQuery(spaceId, range), enabled });

  const error = space.error ?? projects.error ?? analytics.error ?? report.error;
  if (!space.data) return error ? <p className="page-error" role="alert">{error.message}</p> : <p className="loading">{t('analytics.loading')}</p>;
  const names = new Map((projects.data ?? []).map((p) => [p.id, p.name]));
  const projectName = (id: number) => names.get(id) ?? t('analytics.projectN', { id });
  const open = (title: string, metric: Metric, projectId?: number) => setDrill({ title, query: spaceDrillQuery(spaceId, range, projectId ? { metric, projectId } : { metric }) });
  const path = `/analytics/spaces/${spaceId}`;
  return (
    <div className="screen analytics">
      <header className="screen-header">
        <h1>{t('analytics.heading', { space: space.data.name })}</h1>
        {admin && <RangeControls range={range} onChange={setRange} />}
      </header>
      {error && <p className="notice error" role="alert">{error.message}</p>}
      {!admin && <p className="notice">{t('analytics.notAdmin')}</p>}
      {admin && (
        <>
          <p className="row csv-links">
            <CsvLink href={csvUrl(path, range, {}, true)} label={t('reports.csv.series')} />
            <CsvLink href={csvUrl(`${path}/task-report`, range)} label={t('reports.csv.taskNumbers')} />
          </p>
          {drill && <DrillDown drill={drill} onClose={() => setDrill(null)} />}
          {report.data && <Tiles tiles={taskReportTiles(report.data, (metric, title) => open(title, metric))} label={t('reports.keyNumbersLabel')} />}
          {analytics.data && <TaskSeries title={t(range.interval === 'day' ? 'analytics.tasksPerDay' : range.interval === 'week' ? 'analytics.tasksPerWeek' : 'analytics.tasksPerMonth')} points={analytics.data.points} interval={range.interval} />}
        </>
      )}
      <table className="report-table">
        <caption>{t('analytics.projects')}</caption>
        <Head columns={[t('analytics.column.project'), ...(admin ? [t('numbers.column.tasks'), t('numbers.column.done'), t('numbers.overdue')] : []), <span className="sr-only">{t('analytics.column.report')}</span>]} />
        <tbody>
          {(projects.data ?? []).map((p) => {
            const row = analytics.data?.byProject.find((r) => r.projectId === p.id);
            const drillCell = (metric: Metric, value: number | undefined, what: string, whatLower: string) =>
              value ? (
                <button type="button" className="link-button" onClick={() => open(`${what}: ${projectName(p.id)}`, metric, p.id)} aria-label={t('analytics.cellDrill', { value, what: whatLower, project: projectName(p.id) })}>
                  {value}
                </button>
              ) : (
                (value ?? '—')
              );
            return (
              <tr key={p.id}>
                <th scope="row">{p.name}</th>
                {admin && (
                  <>
                    <td>{drillCell('total', row?.total, t('numbers.column.tasks'), t('numbers.tasksLower'))}</td>
                    <td>{row?.done ?? '—'}</td>
                    <td>{drillCell('overdue', row?.overdue, t('numbers.overdue'), t('numbers.overdueLower'))}</td>
                  </>
                )}
                <td>{canSeeProjectReport(space.data.role) ? <Link to={`/analytics/projects/${p.id}`} aria-label={t('analytics.reportOf', { name: p.name })}>{t('analytics.column.report')}</Link> : null}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
