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
  if (!space.data) return error ? <p className="page-error" role="alert">{error.message}</p> : <p className="loading">Loading analytics…</p>;
  const names = new Map((projects.data ?? []).map((p) => [p.id, p.name]));
  const projectName = (id: number) => names.get(id) ?? `Project ${id}`;
  const open = (title: string, metric: Metric, projectId?: number) => setDrill({ title, query: spaceDrillQuery(spaceId, range, projectId ? { metric, projectId } : { metric }) });
  const path = `/analytics/spaces/${spaceId}`;
  return (
    <div className="screen analytics">
      <header className="screen-header">
        <h1>Analytics: {space.data.name}</h1>
        {admin && <RangeControls range={range} onChange={setRange} />}
      </header>
      {error && <p className="notice error" role="alert">{error.message}</p>}
      {!admin && <p className="notice">The space's own analytics are for its admins; each project's report is below.</p>}
      {admin && (
        <>
          <p className="row csv-links">
            <CsvLink href={csvUrl(path, range, {}, true)} label="Series as CSV" />
            <CsvLink href={csvUrl(`${path}/task-report`, range)} label="Task numbers as CSV" />
          </p>
          {drill && <DrillDown drill={drill} onClose={() => setDrill(null)} />}
          {report.data && <Tiles tiles={taskReportTiles(report.data, (metric, title) => open(title, metric))} label="Key numbers" />}
          {analytics.data && <TaskSeries title={`Tasks per ${range.interval}`} points={analytics.data.points} interval={range.interval} />}
        </>
      )}
      <table className="report-table">
        <caption>Projects</caption>
        <Head columns={['Project', ...(admin ? ['Tasks', 'Done', 'Overdue'] : []), <span className="sr-only">Report</span>]} />
        <tbody>
          {(projects.data ?? []).map((p) => {
            const row = analytics.data?.byProject.find((r) => r.projectId === p.id);
            const drillCell = (metric: Metric, value: number | undefined, what: string) =>
              value ? (
                <button type="button" className="link-button" onClick={() => open(`${what}: ${projectName(p.id)}`, metric, p.id)} aria-label={`${value} ${what.toLowerCase()} in ${projectName(p.id)}: list them`}>
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
                    <td>{drillCell('total', row?.total, 'Tasks')}</td>
                    <td>{row?.done ?? '—'}</td>
                    <td>{drillCell('overdue', row?.overdue, 'Overdue')}</td>
                  </>
                )}
                <td>{canSeeProjectReport(space.data.role) ? <Link to={`/analytics/projects/${p.id}`} aria-label={`Report of ${p.name}`}>Report</Link> : null}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
