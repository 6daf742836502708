import { sql } from 'drizzle-orm';
import { queryRows } from '../../../db/client.js';
import type { Ctx } from '../../../platform/context.js';
import { presentHistory } from '../history/history.service.js';
import type { HistoryDto } from '../history/history.schemas.js';
import { authorizeChat } from './messages.policy.js';

/** "Chat details": the task's history, newest first, optionally only some types (`type=4,11`). */
export async function listTaskHistory(
  ctx: Ctx,
  taskId: number,
  query: { type?: string; limit: number; offset: number },
): Promise<{ items: HistoryDto[]; total: number }> {
  const { db, actor } = ctx;
  await authorizeChat(db, actor, taskId, 'read');
  const types = query.type === undefined ? sql`` : sql`and type = any(${`{${query.type}}`}::smallint[])`;
  const where = sql`task_id = ${taskId} and organization_id = ${actor.organizationId} ${types}`;
  const [rows, [count]] = await Promise.all([
    queryRows<Parameters<typeof presentHistory>[0]>(
      db,
      sql`select id, update_date as "updateDate", task_id as "taskId", user_id as "userId", state, type,
            project_name as "projectName", commit_name as "commitName", commit_link as "commitLink", task_name as "taskName"
          from task_history where ${where} order by id desc limit ${query.limit} offset ${query.offset}`,
    ),
    queryRows<{ n: number }>(db, sql`select count(*)::int as n from task_history where ${where}`),
  ]);
  return { items: rows.map(presentHistory), total: Number(count?.n ?? 0) };
}
