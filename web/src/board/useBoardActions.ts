import { useMemo } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, call, type Stage, type Task } from '../api/client';
import { keys } from '../api/queries';
import { useAction } from '../common/action';
import { errorText, useToast } from '../common/toast';
import { t } from '../i18n';
import { placeOf, placeTask, upsertTask, type BoardData } from './model';

export interface StageActions {
  rename(stage: Stage, name: string): Promise<unknown>;
  limit(stage: Stage, tasksLimit: number): Promise<unknown>;
  colour(stage: Stage, color: string): Promise<unknown>;
  move(stage: Stage, position: number): Promise<unknown>;
  /** `idempotencyKey`: the same for a retried add, so the card is made once (InlineForm's key). */
  addTask(stage: Stage, name: string, idempotencyKey?: string): Promise<unknown>;
  addStage(name: string): Promise<unknown>;
  /** Deletes the column; its tasks (archived ones too) go to `moveTasksTo`, or the API refuses a column that holds any. */
  remove(stage: Stage, moveTasksTo: number | null): Promise<unknown>;
}

export interface Move {
  task: Task;
  stageId: number;
  index: number;
}

/** The board's writes: each answer (a column, a task) is put into the board cache as it comes. */
export function useBoardActions(projectId: number) {
  const client = useQueryClient();
  const run = useAction();
  const toast = useToast();
  const key = keys.board(projectId);
  const update = (fn: (board: BoardData) => BoardData) => client.setQueryData<BoardData>(key, (b) => (b ? fn(b) : b));
  const putStages = (stages: Stage[]) => update((b) => ({ ...b, project: { ...b.project, stages } }));
  // The colour route answers `order` as a number (the spec's form), the others as a string.
  const putStage = ({ id, name, tasksLimit, color }: Omit<Stage, 'order'>) =>
    update((b) => ({ ...b, project: { ...b.project, stages: b.project.stages.map((s) => (s.id === id ? { ...s, name, tasksLimit, color } : s)) } }));
  const path = (stage: Stage) => ({ params: { path: { projectId, stageId: stage.id } } });

  const stages = useMemo<StageActions>(
    () => ({
      rename: (stage, name) => run(async () => putStage(await call(api.PATCH('/projects/{projectId}/stages/{stageId}/name', { ...path(stage), body: { name } })))),
      limit: (stage, tasksLimit) => run(async () => putStage(await call(api.PATCH('/projects/{projectId}/stages/{stageId}/tasks-limit', { ...path(stage), body: { tasksLimit } })))),
      colour: (stage, color) => run(async () => putStage(await call(api.PATCH('/projects/{projectId}/stages/{stageId}/color', { ...path(stage), body: { color } })))),
      move: (stage, position) =>
        run(async () => {
          const ids = (client.getQueryData<BoardData>(key)?.project.stages ?? []).map((s) => s.id).filter((id) => id !== stage.id);
          ids.splice(position, 0, stage.id);
          putStages(await call(api.PATCH('/projects/{projectId}/stages/order', { params: { path: { projectId } }, body: { ids } })));
        }),
      addTask: (stage, name, idempotencyKey) =>
        run(async () => {
          const headers = idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {};
          const { task } = await call(api.POST('/tasks', { body: { name, stageId: stage.id }, params: { header: headers } }));
          update((b) => upsertTask(b, task));
        }),
      addStage: (name) =>
        run(async () => {
          const order = client.getQueryData<BoardData>(key)?.project.stages.length ?? 0;
          const stage = await call(api.POST('/projects/{projectId}/stages', { params: { path: { projectId } }, body: { name, order } }));
          update((b) => (b.project.stages.some((s) => s.id === stage.id) ? b : { ...b, project: { ...b.project, stages: [...b.project.stages, stage] } }));
        }),
      remove: (stage, moveTasksTo) =>
        run(async () => {
          await call(api.DELETE('/projects/{projectId}/stages/{stageId}', { params: { path: { projectId, stageId: stage.id }, query: moveTasksTo ? { moveTasksTo } : {} } })).catch((err: unknown) => {
            if (err instanceof ApiError && err.code === 'STAGE_NOT_EMPTY')
              throw new Error(`Column "${stage.name}" was not deleted: it still holds tasks (archived ones count too). Choose a column to move them to, or restore and move them first.`);
            throw err;
          });
          update((b) => ({ ...b, project: { ...b.project, stages: b.project.stages.filter((s) => s.id !== stage.id) } }));
          // Moved tasks arrive by their events; a reload catches any this client missed.
          if (moveTasksTo) await client.invalidateQueries({ queryKey: key });
        }, keys.archived(projectId)),
    }),
    [projectId, run],
  );

  // Optimistic: the card lands at once; a refusal (WIP limit, role) puts it back where it was,
  // from its own previous place rather than a snapshot, so events that came meanwhile are kept.
  const move = useMutation({
    mutationFn: ({ task, stageId, index }: Move) => call(api.POST('/tasks/move', { body: { taskIds: [task.id], stageId, order: index } })),
    onMutate: async ({ task, stageId, index }: Move) => {
      await client.cancelQueries({ queryKey: key });
      update((b) => ({ ...b, tasks: placeTask(b.tasks, projectId, task, stageId, index) }));
    },
    onError: (err, { task }) => {
      update((b) => upsertTask(b, task));
      toast(t('card.moveBack', { reason: errorText(err) }), 'error');
    },
    onSuccess: ({ tasks }) => update((b) => tasks.reduce(upsertTask, b)),
  });

  const archive = (task: Task) =>
    run(async () => {
      const stageId = placeOf(task, projectId)?.stageId;
      if (stageId === undefined) return;
      await call(api.PATCH('/tasks/{taskId}/archive', { params: { path: { taskId: task.id } }, body: { stageId } }));
      update((b) => ({ ...b, tasks: b.tasks.filter((t) => t.id !== task.id) }));
    }, keys.archived(projectId));

  const restore = (task: Task) =>
    run(async () => {
      const { task: restored } = await call(api.PATCH('/tasks/{taskId}/restore', { params: { path: { taskId: task.id } }, body: {} }));
      update((b) => upsertTask(b, restored));
    }, keys.archived(projectId));

  return { stages, move, archive, restore };
}
