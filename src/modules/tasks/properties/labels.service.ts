import { sql } from 'drizzle-orm';
import { queryRows } from '../../../db/client.js';
import type { Ctx } from '../../../platform/context.js';
import { AppError } from '../../../platform/errors.js';
import { HISTORY } from '../history/history.service.js';
import { beginTaskChange, finishTaskChange, type TaskWithHistory } from './task-change.js';

/** Labels are organization-wide: any label of the caller's organization may go on any of its tasks. */
export async function attachTaskLabel(ctx: Ctx, taskId: number, labelId: number): Promise<TaskWithHistory> {
  const { db, actor } = ctx;
  const task = await beginTaskChange(ctx, taskId, 'changeLabels');
  // KEY SHARE on the label: a concurrent delete of it waits for this attach instead of orphaning it.
  const [label] = await queryRows<{ name: string }>(
    db,
    sql`select name from labels where id = ${labelId} and organization_id = ${actor.organizationId} for key share`,
  );
  if (!label) {
    throw new AppError('REFERENCE_NOT_FOUND', `label ${labelId} does not exist in this organization`, [{ path: '/labelId', message: 'must name a label of the organization' }]);
  }
  const added = await queryRows<{ labelId: number }>(
    db,
    sql`insert into task_labels (organization_id, task_id, label_id) values (${actor.organizationId}, ${taskId}, ${labelId})
        on conflict (task_id, label_id) do nothing returning label_id as "labelId"`,
  );
  const changed = added.length > 0;
  return finishTaskChange(ctx, task, {
    type: HISTORY.labels,
    state: changed ? `added the label "${label.name}"` : `the label "${label.name}" was already on the task`,
    changed,
  });
}

/** Detaching a label that is not on the task (or does not exist) changes nothing and is not an error. */
export async function detachTaskLabel(ctx: Ctx, taskId: number, labelId: number): Promise<TaskWithHistory> {
  const task = await beginTaskChange(ctx, taskId, 'changeLabels');
  const [removed] = await queryRows<{ name: string }>(
    ctx.db,
    sql`delete from task_labels tl using labels l
        where tl.task_id = ${taskId} and tl.label_id = ${labelId} and l.id = tl.label_id
        returning l.name`,
  );
  return finishTaskChange(ctx, task, {
    type: HISTORY.labels,
    state: removed ? `removed the label "${removed.name}"` : `label ${labelId} was not on the task`,
    changed: Boolean(removed),
  });
}
