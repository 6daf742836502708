import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, call, type Label, type Member } from '../api/client';
import { spaceMembersQuery, taskQuery } from '../api/queries';
import { useBoardActions } from '../board/useBoardActions';
import { CloseButton, Drawer } from '../common/Drawer';
import { byUserId } from '../common/people';
import { TitleInput } from '../common/TitleInput';
import { errorText } from '../common/toast';
import { Checklist } from './Checklist';
import { Chat } from './Chat';
import { Cover, coverWrites } from './Cover';
import { Description } from './Description';
import { Fields } from './Fields';
import { History } from './History';
import { TimeSection } from './TimeSection';
import { useTaskWrite } from './useTaskWrite';
import { t } from '../i18n';

interface Props {
  taskId: number;
  projectId: number;
  spaceId: number;
  /** The caller's role in the board's space (the drawer's controls follow it). */
  spaceRole: string | undefined;
  canEdit: boolean;
  members: Member[];
  labels: Label[];
  onClose: () => void;
}

/** The open task beside its board: every property, its chat, time and history; live from events. */
export function TaskDrawer({ taskId, projectId, spaceId, spaceRole, canEdit, members, labels, onClose }: Props) {
  const { data: task, error } = useQuery(taskQuery(taskId));
  const { data: spaceMembers } = useQuery(spaceMembersQuery(spaceId));
  const write = useTaskWrite(taskId);
  const { archive } = useBoardActions(projectId);
  const byId = useMemo(() => byUserId(members), [members]);
  // Mentions count for people who can read the task: the space's members and the organization's admins.
  const people = useMemo(() => {
    const inSpace = new Set((spaceMembers ?? []).map((m) => m.userId));
    return members.filter((m) => m.active && !m.deleted && (inSpace.has(m.userId) || m.role === 'owner' || m.role === 'admin'));
  }, [members, spaceMembers]);

  const header = (
    <>
      {task && canEdit ? (
        <TitleInput id="drawer-title" label={t('task.name')} name={task.name} onRename={(name) => void write(() => call(api.PATCH('/tasks/{taskId}/name', { params: { path: { taskId } }, body: { name } })))} />
      ) : (
        <h2 id="drawer-title">{task?.name ?? t('task.task')}</h2>
      )}
      {task && canEdit && (
        <button type="button" className="ghost" onClick={() => void archive(task).then(onClose, () => {})}>
          {t('task.archive')}
        </button>
      )}
      <CloseButton label={t('task.close')} onClose={onClose} />
    </>
  );

  return (
    <Drawer labelledBy="drawer-title" testId="task-drawer" onClose={onClose} header={header}>
      {error && <p role="alert">{errorText(error)}</p>}
      {task && (
        <div className="drawer-body">
          <Fields task={task} canEdit={canEdit} members={members} labels={labels} write={write} />
          <Cover task={task} canEdit={canEdit} write={write} />
          <Description taskId={taskId} canEdit={canEdit} write={write} />
          <Checklist taskId={taskId} canEdit={canEdit} write={write} />
          <TimeSection task={task} canEdit={canEdit} write={write} />
          <Chat taskId={taskId} canEdit={canEdit} spaceRole={spaceRole} members={byId} people={people} onCover={canEdit ? (fileId) => void write(() => coverWrites(taskId).fromFile(fileId)) : undefined} />
          <History taskId={taskId} members={members} />
        </div>
      )}
    </Drawer>
  );
}

export type Write = ReturnType<typeof useTaskWrite>;
