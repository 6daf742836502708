import { memo, useContext, type CSSProperties, type HTMLAttributes, type Ref } from 'react';
import { Link } from 'react-router';
import type { Label, Member, Task } from '../api/client';
import { FileImage } from '../common/files';
import { Avatar } from '../common/people';
import { dueOf } from './model';
import { MoveToContext } from './MoveDialog';
import { ArrowRightLeft, CalendarDays, GripVertical, MessageSquare, SquareCheck, Timer } from 'lucide-react';
import { formatDate, t, type MessageKey } from '../i18n';

export const STATUS: Record<number, MessageKey> = { 1: 'status.1', 2: 'status.2', 3: 'status.3' };

export interface CardProps {
  task: Task;
  projectId: number;
  members: Map<number, Member>;
  labels: Map<number, Label>;
  today: string;
  /** Drag handle wiring from dnd-kit (absent for readers and in the drag overlay). */
  handle?: HTMLAttributes<HTMLButtonElement> & { ref?: Ref<HTMLButtonElement> };
  style?: CSSProperties;
  dragging?: boolean;
}

const hours = (h: number) => t('task.hoursShort', { hours: Number.isInteger(h) ? h : h.toFixed(1) });

/** One card: cover, labels, name, and the badges a board shows at a glance. */
export const Card = memo(function Card({ task, projectId, members, labels, today, handle, dragging }: CardProps) {
  const due = dueOf(task);
  const overdue = due !== null && due < today && task.status !== 1;
  const { items, itemsChecked } = task.checklist;
  const moveTo = useContext(MoveToContext);
  return (
    <article className={`card ${dragging ? 'dragging' : ''} status-${task.status}`} aria-label={task.name} style={task.color ? { borderLeftColor: task.color } : undefined}>
      {task.cover && (
        <div className="cover" style={{ background: task.cover.dominantColor }}>
          <FileImage link={`/files/${task.cover.pictureUid}`} alt="" decoding="async" />
        </div>
      )}
      {task.tags.length > 0 && (
        <ul className="labels" aria-label={t('card.labels')}>
          {task.tags.map((id) => {
            const label = labels.get(id);
            return label ? (
              <li key={id} className="label" style={{ background: label.color }}>
                {label.name}
              </li>
            ) : null;
          })}
        </ul>
      )}
      <div className="card-title">
        <Link to={`/projects/${projectId}/tasks/${task.id}`} className="card-link">
          {task.name}
        </Link>
        {handle && (
          <button type="button" className="handle" aria-label={t('card.move', { name: task.name })} {...handle}>
            <GripVertical aria-hidden="true" size={14} />
          </button>
        )}
        {moveTo && !dragging && (
          <button type="button" className="move-to" aria-label={t('card.moveToFor', { name: task.name })} title={t('card.moveTo')} onClick={() => moveTo(task)}>
            <ArrowRightLeft aria-hidden="true" size={14} />
          </button>
        )}
      </div>
      <div className="badges">
        {STATUS[task.status] && <span className={`badge status`}>{t(STATUS[task.status]!)}</span>}
        {due && (
          <span className={`badge ${overdue ? 'overdue' : ''}`} title={t('card.due')}>
            <CalendarDays aria-hidden="true" size={14} /> <time dateTime={due}>{formatDate(due, { month: 'short', day: 'numeric', timeZone: 'UTC' })}</time>
            {overdue && <span className="sr-only"> {t('card.overdue')}</span>}
          </span>
        )}
        {items > 0 && (
          <span className={`badge ${items === itemsChecked ? 'complete' : ''}`} title={t('card.checklist')}>
            <SquareCheck aria-hidden="true" size={14} /> {itemsChecked}/{items}
          </span>
        )}
        {task.hasMessages && (
          <span className="badge" title={t('card.hasChat')}>
            <MessageSquare aria-hidden="true" size={14} />
            <span className="sr-only">{t('card.chat')}</span>
          </span>
        )}
        {(task.factTime > 0 || task.planTime > 0) && (
          <span className="badge" title={t('card.time')}>
            <Timer aria-hidden="true" size={14} /> {hours(task.factTime)}
            {task.planTime > 0 ? ` / ${hours(task.planTime)}` : ''}
          </span>
        )}
        <span className="assignees">
          {task.responsibleUserId.slice(0, 3).map((id) => (
            <Avatar key={id} member={members.get(id) ?? { userId: id, name: `User ${id}` }} size={22} />
          ))}
        </span>
      </div>
    </article>
  );
});
