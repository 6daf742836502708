import { sql } from 'drizzle-orm';
import { idArray, queryRows } from '../../../db/client.js';
import type { Ctx } from '../../../platform/context.js';
import { HISTORY } from '../history/history.service.js';
import { requireAssignable } from '../tasks.policy.js';
import { beginTaskChange, finishTaskChange, userNames, type TaskWithHistory } from './task-change.js';

/**
 * Assignees (task_assignees, history 8) and members (task_members, history 9) are the same kind of
 * set: user ids who must be members of a space holding the task's project when they join it.
 * Adding someone already there or removing someone absent changes nothing and is not an error,
 * so a retried request answers as the first one did; its history record says nothing changed.
 */
const SETS = {
  assignees: { table: sql`task_assignees`, type: HISTORY.assignees, noun: 'assignee', aNoun: 'an assignee' },
  members: { table: sql`task_members`, type: HISTORY.members, noun: 'member', aNoun: 'a member' },
} as const;
export type PeopleSet = keyof typeof SETS;


export async function addTaskPerson(ctx: Ctx, set: PeopleSet, taskId: number, userId: number): Promise<TaskWithHistory> {
  const s = SETS[set];
  const task = await beginTaskChange(ctx, taskId, set === 'assignees' ? 'changeAssignees' : 'changeMembers');
  await requireAssignable(ctx.db, ctx.actor, task.projectId, [userId], 'userId');
  const added = await queryRows<{ userId: number }>(
    ctx.db,
    sql`insert into ${s.table} (organization_id, task_id, user_id) values (${ctx.actor.organizationId}, ${taskId}, ${userId})
        on conflict (task_id, user_id) do nothing returning user_id as "userId"`,
  );
  const who = await userNames(ctx, [userId]);
  const changed = added.length > 0;
  return finishTaskChange(ctx, task, { type: s.type, state: changed ? `added ${s.noun} ${who}` : `${who} was already ${s.aNoun}`, changed });
}

export async function removeTaskPerson(ctx: Ctx, set: PeopleSet, taskId: number, userId: number): Promise<TaskWithHistory> {
  const s = SETS[set];
  const task = await beginTaskChange(ctx, taskId, set === 'assignees' ? 'changeAssignees' : 'changeMembers');
  const removed = await queryRows<{ userId: number }>(
    ctx.db,
    sql`delete from ${s.table} where task_id = ${taskId} and user_id = ${userId} returning user_id as "userId"`,
  );
  const who = await userNames(ctx, [userId]);
  const changed = removed.length > 0;
  return finishTaskChange(ctx, task, { type: s.type, state: changed ? `removed ${s.noun} ${who}` : `${who} was not ${s.aNoun}`, changed });
}

/**
 * Replaces the assignees with the given set. Only people joining are checked against the space:
 * someone who left the space since being assigned may stay assigned until removed.
 */
export async function replaceTaskAssignees(ctx: Ctx, taskId: number, userIds: number[]): Promise<TaskWithHistory> {
  const { db, actor } = ctx;
  const wanted = [...new Set(userIds)];
  const task = await beginTaskChange(ctx, taskId, 'changeAssignees');
  const current = (await queryRows<{ userId: number }>(db, sql`select user_id as "userId" from task_assignees where task_id = ${taskId}`)).map((r) =>
    Number(r.userId),
  );
  const joining = wanted.filter((id) => !current.includes(id));
  const leaving = current.filter((id) => !wanted.includes(id));
  await requireAssignable(db, actor, task.projectId, joining, 'responsibleUserId');
  if (leaving.length > 0) await db.execute(sql`delete from task_assignees where task_id = ${taskId} and user_id = any(${idArray(leaving)})`);
  if (joining.length > 0) {
    await db.execute(
      sql`insert into task_assignees (organization_id, task_id, user_id)
          select ${actor.organizationId}, ${taskId}, u from unnest(${idArray(joining)}) as u`,
    );
  }
  const parts = [joining.length ? `added ${await userNames(ctx, joining)}` : '', leaving.length ? `removed ${await userNames(ctx, leaving)}` : ''].filter(Boolean);
  const changed = parts.length > 0;
  return finishTaskChange(ctx, task, { type: HISTORY.assignees, state: changed ? `changed the assignees: ${parts.join('; ')}` : 'kept the assignees', changed });
}
