import { useQuery } from '@tanstack/react-query';
import { CsvLink, csvUrl } from './CsvLink';
import { hours, taskReportTiles, Tiles } from './Numbers';
import { userSeriesQuery, userTaskReportQuery } from './queries';
import { rangeProblem, type Range } from './range';
import { TaskSeries } from './TaskSeries';

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
        <CsvLink href={csvUrl(`${path}/task-report`, range)} label="Task numbers as CSV" />
        <CsvLink href={csvUrl(`${path}/task-series`, range, {}, true)} label="Series as CSV" />
      </p>
      {report.data && <Tiles tiles={taskReportTiles(report.data)} label={`${title}: key numbers`} />}
      {series.data && <TaskSeries title={`${title}: tasks per ${range.interval}`} points={points} interval={range.interval} />}
      {series.data && points.length > 0 && <p className="muted">Time recorded in the period: {hours(points.reduce((sum, p) => sum + p.factTime, 0))}</p>}
    </section>
  );
}
