import { SeriesChart } from './charts/SeriesChart';
import { pointLabel, type Interval } from './range';

interface Point {
  from: string;
  created: number;
  finished: number;
  overdue: number;
}

/** Created, finished and overdue tasks per interval (a space's or a person's SeriesPoints). */
export function TaskSeries({ title, points, interval }: { title: string; points: Point[]; interval: Interval }) {
  return (
    <SeriesChart
      title={title}
      kind="line"
      labels={points.map((p) => pointLabel(p.from, interval))}
      series={[
        { name: 'Created', values: points.map((p) => p.created) },
        { name: 'Finished', values: points.map((p) => p.finished) },
        { name: 'Overdue', values: points.map((p) => p.overdue) },
      ]}
    />
  );
}
