import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useMatch, useNavigate, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import {
  closestCorners,
  DndContext,
  DragOverlay,
  KeyboardSensor,
  MouseSensor,
  TouchSensor,
  useSensor,
  useSensors,
  type Announcements,
  type DragEndEvent,
  type DragStartEvent,
} from '@dnd-kit/core';
import { sortableKeyboardCoordinates } from '@dnd-kit/sortable';
import { boardQuery, labelsQuery, organizationQuery, spaceQuery } from '../api/queries';
import type { Task } from '../api/client';
import { byUserId } from '../common/people';
import { InlineForm } from '../common/InlineForm';
import { retryable } from '../common/errors';
import { errorText } from '../common/toast';
import { t } from '../i18n';
import { canEditTasks, canManageColumns } from '../common/roles';
import { TaskDrawer } from '../task/TaskDrawer';
import { ArchivePanel } from './ArchivePanel';
import { Card } from './Card';
import { Column } from './Column';
import { Filters } from './Filters';
import { MoveDialog, MoveToContext } from './MoveDialog';
import { groupColumns, matches, NO_FILTER, placeOf, type BoardFilter } from './model';
import { useBoardActions } from './useBoardActions';
import { moveFocus, typing } from './keyboard';

const idOf = (dndId: string | number) => Number(String(dndId).split('-')[1]);
const today = () => new Date().toISOString().slice(0, 10);

export function BoardPage() {
  const params = useParams();
  const projectId = Number(params.projectId);
  const taskId = params.taskId ? Number(params.taskId) : null;
  const archiveOpen = useMatch('/projects/:projectId/archive') !== null;
  const navigate = useNavigate();
  const board = useQuery(boardQuery(projectId));
  const spaceId = board.data?.project.spaceId;
  const space = useQuery({ ...spaceQuery(spaceId ?? 0), enabled: spaceId !== undefined });
  const { data: organization } = useQuery(organizationQuery);
  const { data: labelList = [] } = useQuery(labelsQuery);
  const { stages: stageActions, move, restore } = useBoardActions(projectId);
  const [filter, setFilter] = useState<BoardFilter>(NO_FILTER);
  const [dragged, setDragged] = useState<Task | null>(null);
  const [moving, setMoving] = useState<Task | null>(null);
  const role = space.data?.role;
  const canEdit = canEditTasks(role);
  const canManage = canManageColumns(role);

  const members = useMemo(() => byUserId(organization?.members), [organization]);
  const labels = useMemo(() => new Map(labelList.map((l) => [l.id, l])), [labelList]);
  const stages = board.data?.project.stages ?? [];
  const columns = useMemo(() => (board.data ? groupColumns(board.data.tasks, board.data.project.stages, projectId) : new Map<number, Task[]>()), [board.data, projectId]);
  const day = today();
  const shown = useMemo(() => new Map([...columns].map(([id, list]) => [id, list.filter((t) => matches(t, filter, day))])), [columns, filter, day]);
  const taskById = useMemo(() => new Map((board.data?.tasks ?? []).map((t) => [t.id, t])), [board.data]);

  const sensors = useSensors(
    // A mouse drags after 5 px (a click still opens the card); a finger after a long press, so a
    // swipe still scrolls the board and the column.
    useSensor(MouseSensor, { activationConstraint: { distance: 5 } }),
    useSensor(TouchSensor, { activationConstraint: { delay: 250, tolerance: 8 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );

  const nameOf = useCallback(
    (dndId: string | number) => {
      const id = idOf(dndId);
      return String(dndId).startsWith('stage-') ? `column ${stages.find((s) => s.id === id)?.name ?? ''}` : (taskById.get(id)?.name ?? 'a card');
    },
    [stages, taskById],
  );
  const announcements: Announcements = {
    onDragStart: ({ active }) => `Picked up ${nameOf(active.id)}.`,
    onDragOver: ({ active, over }) => (over ? `${nameOf(active.id)} is over ${nameOf(over.id)}.` : `${nameOf(active.id)} is no longer over a drop target.`),
    onDragEnd: ({ active, over }) => (over ? `${nameOf(active.id)} was dropped at ${nameOf(over.id)}.` : `${nameOf(active.id)} was dropped.`),
    onDragCancel: ({ active }) => `Moving ${nameOf(active.id)} was cancelled.`,
  };

  function onDragStart({ active }: DragStartEvent) {
    setDragged(taskById.get(idOf(active.id)) ?? null);
  }

  function onDragEnd({ active, over }: DragEndEvent) {
    setDragged(null);
    const task = taskById.get(idOf(active.id));
    if (!task || !over) return;
    const from = placeOf(task, projectId);
    let stageId: number;
    let index: number;
    if (String(over.id).startsWith('stage-')) {
      stageId = idOf(over.id);
      index = (columns.get(stageId) ?? []).filter((t) => t.id !== task.id).length;
    } else {
      const target = taskById.get(idOf(over.id));
      const place = target && placeOf(target, projectId);
      if (!place) return;
      stageId = place.stageId;
      index = (columns.get(stageId) ?? []).findIndex((t) => t.id === target.id);
    }
    if (from && from.stageId === stageId && (columns.get(stageId) ?? []).findIndex((t) => t.id === task.id) === index) return;
    move.mutate({ task, stageId, index });
  }

  const closePanel = useCallback(() => navigate(`/projects/${projectId}`), [navigate, projectId]);

  // When the drawer closes, focus goes back to the card it showed (Escape, the close button, Archive).
  const openedTask = useRef<number | null>(null);
  useEffect(() => {
    const previous = openedTask.current;
    openedTask.current = taskId;
    if (taskId !== null || previous === null) return;
    requestAnimationFrame(() => document.querySelector<HTMLElement>(`.card-slot[data-task-id="${previous}"] .card-link`)?.focus());
  }, [taskId]);

  // "n": a new card in the focused card's column, else the first column.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'n' || e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e.target) || taskId !== null) return;
      const column = (document.activeElement?.closest('section.column') ?? document.querySelector('section.column')) as HTMLElement | null;
      const add = column?.querySelector<HTMLButtonElement>('button.add-card');
      if (!add) return;
      e.preventDefault();
      add.click();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [taskId]);

  if (board.isError)
    return (
      <div className="page-error" role="alert">
        <p>{errorText(board.error)}</p>
        {retryable(board.error) && (
          <button type="button" onClick={() => void board.refetch()}>
            {t('action.retry')}
          </button>
        )}
      </div>
    );
  if (!board.data) return <p className="loading">{t('board.loading')}</p>;
  const project = board.data.project;
  return (
    <div className="board-page">
      <header className="board-header">
        <h1>{project.name}</h1>
        {space.data && <span className="role">{space.data.name} · {space.data.role}</span>}
        <Filters filter={filter} onChange={setFilter} members={organization?.members ?? []} labels={labelList} />
        <Link className="archive-link" to={`/projects/${projectId}/archive`}>
          {t('board.archived')}
        </Link>
      </header>
      <MoveToContext.Provider value={canEdit ? setMoving : null}>
      <DndContext sensors={sensors} collisionDetection={closestCorners} onDragStart={onDragStart} onDragEnd={onDragEnd} onDragCancel={() => setDragged(null)} accessibility={{ announcements }}>
        <div className="board" data-testid="board" id="board" tabIndex={-1} onKeyDown={moveFocus}>
          {stages.map((stage, i) => (
            <Column
              key={stage.id}
              stage={stage}
              position={i}
              columns={stages}
              tasks={shown.get(stage.id) ?? []}
              total={columns.get(stage.id)?.length ?? 0}
              projectId={projectId}
              members={members}
              labels={labels}
              today={day}
              canEdit={canEdit}
              canManage={canManage}
              actions={stageActions}
            />
          ))}
          {canManage && (
            <div className="column new-column">
              <InlineForm label={t('board.addColumn')} placeholder={t('board.columnName')} onSubmit={(name) => stageActions.addStage(name)} />
            </div>
          )}
        </div>
        <DragOverlay>{dragged && <Card task={dragged} projectId={projectId} members={members} labels={labels} today={day} dragging />}</DragOverlay>
      </DndContext>
      </MoveToContext.Provider>
      {moving && (
        <MoveDialog
          task={moving}
          projectId={projectId}
          stages={stages}
          columns={columns}
          onMove={(stageId, index) => move.mutate({ task: taskById.get(moving.id) ?? moving, stageId, index })}
          onClose={() => setMoving(null)}
        />
      )}
      {taskId !== null && (
        <TaskDrawer key={taskId} taskId={taskId} projectId={projectId} spaceId={project.spaceId} spaceRole={role} canEdit={canEdit} members={organization?.members ?? []} labels={labelList} onClose={closePanel} />
      )}
      {archiveOpen && <ArchivePanel projectId={projectId} stages={stages} spaceRole={role} restore={restore} onClose={closePanel} />}
    </div>
  );
}
