import { useCallback } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { Task } from '../api/client';
import { keys } from '../api/queries';
import { useAction } from '../common/action';
import { upsertTask, type BoardData } from '../board/model';

/**
 * Runs a write that answers the task (`{task, history}` or the task itself) and puts the answer in
 * the drawer's cache and every open board at once; the named parts of the task reload.
 */
export function useTaskWrite(taskId: number) {
  const client = useQueryClient();
  const run = useAction();
  return useCallback(
    (work: () => Promise<{ task: Task } | Task | unknown>, ...parts: Array<'description' | 'subtasks' | 'messages' | 'history' | 'time'>) =>
      run(async () => {
        const answer = await work();
        const task = answer && typeof answer === 'object' && 'task' in answer ? (answer as { task: Task }).task : (answer as Task | undefined);
        if (task && typeof task === 'object' && 'stages' in task) {
          client.setQueryData(keys.task(taskId), task);
          for (const [key, board] of client.getQueriesData<BoardData>({ queryKey: ['board'] })) if (board) client.setQueryData(key, upsertTask(board, task));
        }
        return answer;
      }, keys.taskPart(taskId, 'history'), ...parts.map((p) => keys.taskPart(taskId, p))).catch(() => undefined),
    [client, run, taskId],
  );
}
