import { api, call, upload, type Task } from '../api/client';
import { FileImage } from '../common/files';
import type { Write } from './TaskDrawer';
import { t } from '../i18n';

/** The card's cover as the API names it: an uploaded image, or an image file of the organization (a chat attachment). */
export const coverWrites = (taskId: number) => ({
  upload: (file: File) => {
    const form = new FormData();
    form.set('file', file);
    return upload<{ task: Task }>(`/tasks/${taskId}/cover`, form, 'PATCH');
  },
  fromFile: (fileId: number) => call(api.PATCH('/tasks/{taskId}/cover', { params: { path: { taskId } }, body: { fileId } })),
  remove: () => call(api.DELETE('/tasks/{taskId}/cover', { params: { path: { taskId } } })),
});

/** The task's cover: the picture the card shows, replaced by an upload (or a chat image's "Use as cover") and removed. */
export function Cover({ task, canEdit, write }: { task: Task; canEdit: boolean; write: Write }) {
  const writes = coverWrites(task.id);
  if (!task.cover && !canEdit) return null;
  return (
    <section className="section cover-section" aria-labelledby="cover-title">
      <div className="section-head">
        <h3 id="cover-title">{t('task.cover')}</h3>
        {canEdit && (
          <span className="row">
            <label className="file-pick" title={t('task.coverHint')}>
              {task.cover ? t('task.replaceCover') : t('task.uploadCover')}{' '}
              <input
                type="file"
                accept="image/png,image/jpeg,image/webp,image/gif,image/avif"
                onChange={(e) => {
                  const file = e.target.files?.[0];
                  e.target.value = '';
                  if (file) void write(() => writes.upload(file));
                }}
              />
            </label>
            {task.cover && (
              <button type="button" className="ghost" onClick={() => void write(writes.remove)}>
                {t('task.removeCover')}
              </button>
            )}
          </span>
        )}
      </div>
      {task.cover && (
        <div className="cover-preview" style={{ background: task.cover.dominantColor }}>
          <FileImage link={`/files/${task.cover.pictureUid}`} alt={t('task.coverAlt')} width={task.cover.width} height={task.cover.height} data-testid="cover-image" />
        </div>
      )}
    </section>
  );
}
