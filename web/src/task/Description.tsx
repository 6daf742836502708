import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { keys } from '../api/queries';
import { renderMarkdown } from '../common/markdown';
import type { Write } from './TaskDrawer';
import { FormButtons } from '../common/FormButtons';
import { t } from '../i18n';

export function Description({ taskId, canEdit, write }: { taskId: number; canEdit: boolean; write: Write }) {
  const { data } = useQuery({ queryKey: keys.taskPart(taskId, 'description'), queryFn: () => call(api.GET('/tasks/{taskId}/description', { params: { path: { taskId } } })) });
  const [editing, setEditing] = useState(false);
  const text = data?.description ?? '';
  return (
    <section className="section" aria-labelledby="description-title">
      <div className="section-head">
        <h3 id="description-title">{t('task.description')}</h3>
        {canEdit && !editing && (
          <button type="button" className="ghost" onClick={() => setEditing(true)}>
            {t('task.edit')}
          </button>
        )}
      </div>
      {editing ? (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            const description = String(new FormData(e.currentTarget).get('description'));
            await write(() => call(api.PATCH('/tasks/{taskId}/description', { params: { path: { taskId } }, body: { description: description || null } })), 'description');
            setEditing(false);
          }}
        >
          <textarea name="description" aria-label={t('task.descriptionMarkdown')} defaultValue={text} rows={8} autoFocus />
          <FormButtons onCancel={() => setEditing(false)} />
        </form>
      ) : text ? (
        <div className="markdown" data-testid="description" dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }} />
      ) : (
        <p className="muted">{t('task.noDescription')}</p>
      )}
    </section>
  );
}
