import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { keys } from '../api/queries';
import { renderMarkdown } from '../common/markdown';
import type { Write } from './TaskDrawer';
import { FormButtons } from '../common/FormButtons';

export function Description({ taskId, canEdit, write }: { taskId: number; canEdit: boolean; write: Write }) {
  const { data } = useQuery({ queryKey: keys.taskPart(taskId, 'description'), queryFn: () => call(api.GET('/tasks/{taskId}/description', { params: { path: { taskId } } })) });
  const [editing, setEditing] = useState(false);
  const text = data?.description ?? '';
  return (
    <section className="section" aria-labelledby="description-title">
      <div className="section-head">
        <h3 id="description-title">Description</h3>
        {canEdit && !editing && (
          <button type="button" className="ghost" onClick={() => setEditing(true)}>
            Edit
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
          <textarea name="description" aria-label="Description (Markdown)" defaultValue={text} rows={8} autoFocus />
          <FormButtons onCancel={() => setEditing(false)} />
        </form>
      ) : text ? (
        <div className="markdown" data-testid="description" dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }} />
      ) : (
        <p className="muted">No description.</p>
      )}
    </section>
  );
}
