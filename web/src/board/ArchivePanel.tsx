import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { Stage, Task } from '../api/client';
import { archivedQuery, meQuery } from '../api/queries';
import { noop } from '../common/action';
import { CloseButton, Drawer } from '../common/Drawer';
import { canRestoreTask } from '../common/roles';
import { placeOf } from './model';
import { t } from '../i18n';
import { errorText } from '../common/toast';

interface Props {
  projectId: number;
  stages: Stage[];
  spaceRole: string | undefined;
  restore: (task: Task) => Promise<unknown>;
  onClose: () => void;
}

/** A project's archived tasks, last archived first; each goes back to the end of its column with Restore. */
export function ArchivePanel({ projectId, stages, spaceRole, restore, onClose }: Props) {
  const archived = useQuery(archivedQuery(projectId));
  const { data: me } = useQuery(meQuery);
  const [filter, setFilter] = useState('');
  const [busy, setBusy] = useState<number | null>(null);
  const columnOf = (task: Task) => stages.find((s) => s.id === placeOf(task, projectId)?.stageId)?.name;
  const shown = (archived.data ?? []).filter((t) => t.name.toLowerCase().includes(filter.trim().toLowerCase()));

  const header = (
    <>
      <h2 id="archive-title">{t('board.archived')}</h2>
      <CloseButton label={t('board.closeArchived')} onClose={onClose} />
    </>
  );
  return (
    <Drawer labelledBy="archive-title" testId="archive-panel" onClose={onClose} header={header}>
      <div className="drawer-body">
        {archived.isError && <p role="alert">{errorText(archived.error)}</p>}
        {(archived.data?.length ?? 0) > 5 && (
          <label className="archive-filter">
            {t('board.filter')} <input type="search" value={filter} onChange={(e) => setFilter(e.target.value)} />
          </label>
        )}
        {archived.isSuccess && shown.length === 0 && <p className="muted">{filter ? t('board.noArchivedMatch') : t('board.nothingArchived')}</p>}
        <ul className="archived">
          {shown.map((task) => (
            <li key={task.id}>
              <span className="archived-name">{task.name}</span>
              <span className="muted">{columnOf(task) ? t('board.fromColumn', { column: columnOf(task)! }) : ''}</span>
              {canRestoreTask(spaceRole, task, me?.id) && (
                <button
                  type="button"
                  aria-label={t('board.restoreTask', { name: task.name })}
                  disabled={busy === task.id}
                  onClick={() => {
                    setBusy(task.id);
                    void restore(task)
                      .catch(noop)
                      .finally(() => setBusy(null));
                  }}
                >
                  {t('board.restore')}
                </button>
              )}
            </li>
          ))}
        </ul>
      </div>
    </Drawer>
  );
}
