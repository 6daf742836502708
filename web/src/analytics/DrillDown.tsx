import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import type { Task } from '../api/client';
import type { DrillQuery } from './queries';
import { X } from 'lucide-react';

const STATUS = ['in work', 'done', 'rejected', 'needs attention'];

const homeProject = (task: Task) => (task.stages.find((s) => s.pinned) ?? task.stages[0])?.projectId;

export interface Drill {
  /** What the number was: "Overdue", "3 tasks in Doing". */
  title: string;
  query: DrillQuery;
}

/** The tasks behind a number of a report, each a link to it on its board. */
export function DrillDown({ drill, onClose }: { drill: Drill; onClose: () => void }) {
  const { data, error } = useQuery({ queryKey: drill.query.queryKey, queryFn: drill.query.queryFn });
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [drill.title]);
  return (
    <section className="drill" aria-labelledby="drill-title" data-testid="drill-down">
      <div className="section-head">
        <h2 id="drill-title" ref={heading} tabIndex={-1}>
          {drill.title}
        </h2>
        <button type="button" className="ghost" onClick={onClose} aria-label="Close the task list">
          <X aria-hidden="true" size={16} />
        </button>
      </div>
      {error && <p role="alert">{error.message}</p>}
      {!data && !error && <p className="loading">Loading tasks…</p>}
      {data && (
        <>
          <p className="muted">{data.total === data.tasks.length ? `${data.total} task${data.total === 1 ? '' : 's'}` : `The first ${data.tasks.length} of ${data.total} tasks`}</p>
          <ul className="drill-tasks">
            {data.tasks.map((t) => {
              const projectId = homeProject(t);
              return (
                <li key={t.id}>
                  {projectId ? <Link to={`/projects/${projectId}/tasks/${t.id}`}>{t.name}</Link> : t.name}
                  <span className="muted"> · {STATUS[t.status] ?? `status ${t.status}`}</span>
                  {(t.dateEndWithoutTime ?? t.dateEnd) && <span className="muted"> · due {(t.dateEndWithoutTime ?? t.dateEnd)!.slice(0, 10)}</span>}
                </li>
              );
            })}
          </ul>
        </>
      )}
    </section>
  );
}
