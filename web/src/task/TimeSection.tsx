import { useQuery } from '@tanstack/react-query';
import { api, call, type Task } from '../api/client';
import { keys } from '../api/queries';
import { noop, useAction } from '../common/action';
import type { Write } from './TaskDrawer';
import { Play, Square } from 'lucide-react';
import { language, t } from '../i18n';

export function TimeSection({ task, canEdit, write }: { task: Task; canEdit: boolean; write: Write }) {
  const taskId = task.id;
  const run = useAction();
  const { data: me } = useQuery({ queryKey: keys.me, queryFn: () => call(api.GET('/user')) });
  const { data: records = [] } = useQuery({ queryKey: keys.taskPart(taskId, 'time'), queryFn: () => call(api.GET('/time-records', { params: { query: { taskId, limit: 100 } } })) });
  const { data: timers = [] } = useQuery({
    queryKey: keys.timers,
    queryFn: () => call(api.GET('/timers', { params: { query: { userId: me!.id, running: true } } })),
    enabled: !!me,
  });
  const running = timers.find((t) => t.taskId === taskId && !t.stoppedAt);
  return (
    <section className="section" aria-labelledby="time-title">
      <div className="section-head">
        <h3 id="time-title">{t('task.time')}</h3>
        <span className="muted">
          {task.planTime ? t('task.spentOf', { hours: task.factTime, plan: task.planTime }) : t('task.spent', { hours: task.factTime })}
        </span>
      </div>
      {canEdit && (
        <div className="row">
          {running ? (
            <button type="button" className="primary" onClick={() => void write(() => call(api.PATCH('/timers/{timerId}/stop', { params: { path: { timerId: running.id } }, body: {} })), 'time').then(() => run(async () => {}, keys.timers))}>
              <Square aria-hidden="true" size={14} /> {t('task.stopTimer', { time: new Date(running.startedAt).toLocaleTimeString(language()) })}
            </button>
          ) : (
            <button type="button" onClick={() => void run(() => call(api.POST('/timers', { body: { taskId } })), keys.timers).catch(noop)}>
              <Play aria-hidden="true" size={14} /> {t('task.startTimer')}
            </button>
          )}
          <label className="inline">
            {t('task.plannedHours')}
            <input type="number" min={0} step={0.25} defaultValue={task.planTime} key={task.planTime} onBlur={(e) => Number(e.target.value) !== task.planTime && void write(() => call(api.PATCH('/tasks/{taskId}/set-plan-time', { params: { path: { taskId } }, body: { planTime: Number(e.target.value) } })))} />
          </label>
        </div>
      )}
      <ul className="time-records">
        {records.map((r) => (
          <li key={r.id}>
            <time dateTime={r.date}>{r.date}</time> · {t('task.hoursShort', { hours: r.hours })}{r.comment ? ` · ${r.comment}` : ''}
          </li>
        ))}
      </ul>
      {canEdit && (
        <form
          className="row time-form"
          onSubmit={(e) => {
            e.preventDefault();
            const form = e.currentTarget;
            const data = new FormData(form);
            const body = { taskId, hours: Number(data.get('hours')), date: String(data.get('date')), comment: String(data.get('comment') || '') || null };
            void write(() => call(api.POST('/time-records', { body })), 'time').then(() => form.reset());
          }}
        >
          <label className="inline">
            {t('task.hours')} <input name="hours" type="number" min={0.01} step={0.25} required />
          </label>
          <label className="inline">
            {t('task.date')} <input name="date" type="date" required defaultValue={new Date().toISOString().slice(0, 10)} />
          </label>
          <label className="inline">
            {t('task.comment')} <input name="comment" />
          </label>
          <button>{t('task.logTime')}</button>
        </form>
      )}
    </section>
  );
}
