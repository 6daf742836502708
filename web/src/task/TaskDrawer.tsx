import { useEffect, useRef } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, call, type Label, type Member } from '../api/client';
import { taskQuery } from '../api/queries';
import { useBoardActions } from '../board/useBoardActions';
import { TitleInput } from '../common/TitleInput';
import { Checklist } from './Checklist';
import { Chat } from './Chat';
import { Description } from './Description';
import { Fields } from './Fields';
import { History } from './History';
import { TimeSection } from './TimeSection';
import { useTaskWrite } from './useTaskWrite';

interface Props {
  taskId: number;
  projectId: number;
  canEdit: boolean;
  members: Member[];
  labels: Label[];
  onClose: () => void;
}

/** The open task beside its board: every property, its chat, time and history; live from events. */
export function TaskDrawer({ taskId, projectId, canEdit, members, labels, onClose }: Props) {
  const { data: task, error } = useQuery(taskQuery(taskId));
  const write = useTaskWrite(taskId);
  const { archive } = useBoardActions(projectId);
  const panel = useRef<HTMLDivElement>(null);

  useEffect(() => {
    panel.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && !e.defaultPrevented && onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);

  return (
    <div className="drawer-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="drawer" role="dialog" aria-modal="true" aria-labelledby="drawer-title" ref={panel} tabIndex={-1} data-testid="task-drawer">
        <header className="drawer-header">
          {task && canEdit ? (
            <TitleInput id="drawer-title" label="Task name" name={task.name} onRename={(name) => void write(() => call(api.PATCH('/tasks/{taskId}/name', { params: { path: { taskId } }, body: { name } })))} />
          ) : (
            <h2 id="drawer-title">{task?.name ?? 'Task'}</h2>
          )}
          {task && canEdit && (
            <button type="button" className="ghost" onClick={() => void archive(task).then(onClose, () => {})}>
              Archive
            </button>
          )}
          <button type="button" className="ghost close" onClick={onClose} aria-label="Close task">
            ✕
          </button>
        </header>
        {error && <p role="alert">{error.message}</p>}
        {task && (
          <div className="drawer-body">
            <Fields task={task} canEdit={canEdit} members={members} labels={labels} write={write} />
            <Description taskId={taskId} canEdit={canEdit} write={write} />
            <Checklist taskId={taskId} canEdit={canEdit} write={write} />
            <TimeSection task={task} canEdit={canEdit} write={write} />
            <Chat taskId={taskId} canEdit={canEdit} members={members} />
            <History taskId={taskId} members={members} />
          </div>
        )}
      </div>
    </div>
  );
}

export type Write = ReturnType<typeof useTaskWrite>;
