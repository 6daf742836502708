import { sql } from 'drizzle-orm';
import { queryRows } from '../../../db/client.js';
import type { Ctx } from '../../../platform/context.js';
import { userNames, type TaskWithHistory } from '../properties/task-change.js';
import { HISTORY, recordHistory } from '../history/history.service.js';
import { loadTaskRecords, presentTask } from '../tasks.presenter.js';
import { authorizeInspector } from './inspectors.policy.js';
import type { InspectorStatusInput } from './inspectors.schemas.js';

const VERDICT = ['waiting', 'approved', 'rejected'] as const;

/** Locks the task row (tasks first, as every task change) and names its home project for history. */
async function lockTask(ctx: Ctx, taskId: number): Promise<{ name: string; projectName: string }> {
  const [row] = await queryRows<{ name: string; projectName: string }>(
    ctx.db,
    sql`select t.name, p.name as "projectName" from tasks t join projects p on p.id = t.project_id
        where t.id = ${taskId} and t.organization_id = ${ctx.actor.organizationId} for no key update of t`,
  );
  return row!;
}

async function finish(ctx: Ctx, taskId: number, task: { name: string; projectName: string }, state: string): Promise<TaskWithHistory> {
  const { db, actor } = ctx;
  await db.execute(sql`update tasks set updated_at = now() where id = ${taskId}`);
  const [history] = await recordHistory(db, actor, [{ taskId, type: HISTORY.inspectors, state, projectName: task.projectName, taskName: task.name }]);
  const [record] = await loadTaskRecords(db, actor.organizationId, [taskId]);
  return { task: presentTask(record!), history: history! };
}

/** The inspector's verdict on the task (history 15). */
export async function setInspectorStatus(ctx: Ctx, taskId: number, inspectorId: number, input: InspectorStatusInput): Promise<TaskWithHistory> {
  await authorizeInspector(ctx.db, ctx.actor, taskId, inspectorId, 'setStatus');
  const task = await lockTask(ctx, taskId);
  await ctx.db.execute(
    sql`update task_inspectors set status = ${input.status}, updated_at = now() ${input.comment !== undefined ? sql`, comment = ${input.comment}` : sql``}
        where task_id = ${taskId} and user_id = ${inspectorId}`,
  );
  return finish(ctx, taskId, task, `set the inspection status to ${VERDICT[input.status]}`);
}

export async function removeInspector(ctx: Ctx, taskId: number, inspectorId: number): Promise<TaskWithHistory> {
  await authorizeInspector(ctx.db, ctx.actor, taskId, inspectorId, 'remove');
  const task = await lockTask(ctx, taskId);
  await ctx.db.execute(sql`delete from task_inspectors where task_id = ${taskId} and user_id = ${inspectorId}`);
  return finish(ctx, taskId, task, `removed inspector ${await userNames(ctx, [inspectorId])}`);
}
