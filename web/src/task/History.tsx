import { useQuery } from '@tanstack/react-query';
import { api, call, type Member } from '../api/client';
import { keys } from '../api/queries';
import { t } from '../i18n';

export function History({ taskId, members }: { taskId: number; members: Member[] }) {
  const { data: records = [] } = useQuery({ queryKey: keys.taskPart(taskId, 'history'), queryFn: () => call(api.GET('/tasks/{taskId}/history', { params: { path: { taskId }, query: { limit: 100 } } })) });
  const nameOf = (id: number | null) => (id === null ? 'Automation' : (members.find((m) => m.userId === id)?.name ?? `User ${id}`));
  return (
    <section className="section" aria-labelledby="history-title">
      <h3 id="history-title">{t('task.history')}</h3>
      <ol className="history">
        {records.map((r) => (
          <li key={r.id}>
            <strong>{nameOf(r.userId)}</strong> {r.state} <time dateTime={r.updateDate}>{new Date(r.updateDate).toLocaleString()}</time>
          </li>
        ))}
      </ol>
    </section>
  );
}
