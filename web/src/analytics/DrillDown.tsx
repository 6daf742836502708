import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import type { Task } from '../api/client';
import type { DrillQuery } from './queries';
import { X } from 'lucide-react';
import { t, tn, type MessageKey } from '../i18n';

const STATUS: MessageKey[] = ['drill.status.0', 'drill.status.1', 'drill.status.2', 'drill.status.3'];

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
        <button type="button" className="ghost" onClick={onClose} aria-label={t('drill.close')}>
          <X aria-hidden="true" size={16} />
        </button>
      </div>
      {error && <p role="alert">{error.message}</p>}
      {!data && !error && <p className="loading">{t('drill.loading')}</p>}
      {data && (
        <>
          <p className="muted">{data.total === data.tasks.length ? tn('drill.count', data.total) : t('drill.firstOf', { shown: data.tasks.length, total: data.total })}</p>
          <ul className="drill-tasks">
            {data.tasks.map((task) => {
              const projectId = homeProject(task);
              return (
                <li key={task.id}>
                  {projectId ? <Link to={`/projects/${projectId}/tasks/${task.id}`}>{task.name}</Link> : task.name}
                  <span className="muted">{t('drill.statusPart', { status: STATUS[task.status] ? t(STATUS[task.status]!) : t('drill.statusN', { n: task.status }) })}</span>
                  {(task.dateEndWithoutTime ?? task.dateEnd) && <span className="muted">{t('drill.due', { date: (task.dateEndWithoutTime ?? task.dateEnd)!.slice(0, 10) })}</span>}
                </li>
              );
            })}
          </ul>
        </>
      )}
    </section>
  );
}
