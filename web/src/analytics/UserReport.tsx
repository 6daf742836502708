import { useQuery } from '@tanstack/react-query';
import { CsvLink, csvUrl } from './CsvLink';
import { hours, taskReportTiles, Tiles } from './Numbers';
import { userSeriesQuery, userTaskReportQuery } from './queries';
import { rangeProblem, type Range } from './range';
import { TaskSeries } from './TaskSeries';
import { t } from '../i18n';

/** One person's numbers and series: the tasks assigned to them that the caller can read. */
export function UserReport({ userId, range, title }: { userId: number; range: Range; title: string }) {
  const enabled = !rangeProblem(range);
  const report = useQuery({ ...userTaskReportQuery(userId, range), enabled });
  const series = useQuery({ ...userSeriesQuery(userId, range), enabled });
  const error = report.error ?? series.error;
  const points = series.data ?? [];
  const path = `/analytics/users/${userId}`;
  return (
    <section className="section" aria-labelledby={`user-report-${userId}`}>
      <h2 id={`user-report-${userId}`}>{title}</h2>
      {error && <p className="notice error" role="alert">{error.message}</p>}
      <p className="row csv-links">
        <CsvLink href={csvUrl(`${path}/task-report`, range)} label={t('reports.csv.taskNumbers')} />
        <CsvLink href={csvUrl(`${path}/task-series`, range, {}, true)} label={t('reports.csv.series')} />
      </p>
      {report.data && <Tiles tiles={taskReportTiles(report.data)} label={t('reports.keyNumbers', { title })} />}
      {series.data && <TaskSeries title={t(range.interval === 'day' ? 'reports.tasksPerDay' : range.interval === 'week' ? 'reports.tasksPerWeek' : 'reports.tasksPerMonth', { title })} points={points} interval={range.interval} />}
      {series.data && points.length > 0 && <p className="muted">{t('reports.timeRecorded', { time: hours(points.reduce((sum, p) => sum + p.factTime, 0)) })}</p>}
    </section>
  );
}
