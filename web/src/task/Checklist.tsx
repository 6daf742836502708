import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { keys } from '../api/queries';
import { InlineForm } from '../common/InlineForm';
import type { Write } from './TaskDrawer';
import { X } from 'lucide-react';
import { t } from '../i18n';

export function Checklist({ taskId, canEdit, write }: { taskId: number; canEdit: boolean; write: Write }) {
  const { data: items = [] } = useQuery({ queryKey: keys.taskPart(taskId, 'subtasks'), queryFn: () => call(api.GET('/tasks/{taskId}/subtasks', { params: { path: { taskId } } })) });
  const done = items.filter((i) => i.isChecked).length;
  const path = (subtaskId: number) => ({ params: { path: { taskId, subtaskId } } });
  return (
    <section className="section" aria-labelledby="checklist-title">
      <div className="section-head">
        <h3 id="checklist-title">{t('task.checklist')}</h3>
        {items.length > 0 && (
          <span className="muted">
            {done}/{items.length}
          </span>
        )}
      </div>
      {items.length > 0 && <progress max={items.length} value={done} aria-label={t('task.checklistProgress')} />}
      <ul className="checklist">
        {items.map((item) => (
          <li key={item.id}>
            <label>
              <input
                type="checkbox"
                checked={item.isChecked}
                disabled={!canEdit}
                onChange={(e) => void write(() => call(api.PATCH('/tasks/{taskId}/subtasks/{subtaskId}/is-checked', { ...path(item.id), body: { isChecked: e.target.checked } })), 'subtasks')}
              />
              <span className={item.isChecked ? 'checked' : ''}>{item.name}</span>
            </label>
            {canEdit && (
              <button type="button" className="ghost small" aria-label={t('task.deleteItem', { name: item.name })} onClick={() => void write(() => call(api.DELETE('/tasks/{taskId}/subtasks/{subtaskId}', path(item.id))), 'subtasks')}>
                <X aria-hidden="true" size={14} />
              </button>
            )}
          </li>
        ))}
      </ul>
      {canEdit && <InlineForm label={t('task.addItem')} placeholder={t('task.itemPlaceholder')} onSubmit={(name) => write(() => call(api.POST('/tasks/{taskId}/subtasks', { params: { path: { taskId } }, body: { name } })), 'subtasks')} />}
    </section>
  );
}
