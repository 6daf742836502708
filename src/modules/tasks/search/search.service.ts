import { sql, type SQL } from 'drizzle-orm';
import { queryRows } from '../../../db/client.js';
import type { Ctx } from '../../../platform/context.js';
import { readableTasksCondition } from '../actions/actions.policy.js';
import { TASK_PAGE } from '../actions/actions.schemas.js';
import { inProject, inSpace, statusIn } from '../filters.js';
import { loadTaskRecords, presentTask } from '../tasks.presenter.js';
import type { TaskDto } from '../tasks.schemas.js';
import type { SearchQueryDto } from './search.schemas.js';
import { messageVector, taskVector } from './search.vectors.js';

/**
 * GET /tasks/search: full-text search (websearch_to_tsquery, 'simple') over task names and
 * descriptions and over chat texts, each through its GIN index. A task's rank is that of its own
 * text plus half the best of its messages, so a word in the name outweighs one said in chat, and a
 * long chat does not outweigh either. The task's own text and each message are matched apart (so
 * each can use its index): all words of the query must occur in one of them, and `-word` excludes
 * the text it occurs in, not the whole task. Only tasks the caller can read, filtered, paged.
 */
export async function searchTasks(ctx: Ctx, q: SearchQueryDto): Promise<{ items: TaskDto[]; total: number }> {
  const { db, actor } = ctx;
  const org = actor.organizationId;
  const where: SQL[] = [q.archived ? sql`t.archived_at is not null` : sql`t.archived_at is null`, await readableTasksCondition(db, actor), ...statusIn(q.statuses)];
  if (q.spaceId !== undefined) where.push(inSpace(q.spaceId));
  if (q.projectId !== undefined) where.push(inProject(q.projectId));
  const from = sql`from (
      select task_id, coalesce(max(rank) filter (where own), 0) + coalesce(max(rank) filter (where not own), 0) * 0.5 as rank
      from (
        select t.id as task_id, ts_rank(${taskVector}, query.q) as rank, true as own
        from tasks t, query where ${taskVector} @@ query.q and t.organization_id = ${org}
        union all
        select m.task_id, ts_rank(${messageVector}, query.q), false
        from task_messages m, query where ${messageVector} @@ query.q and m.organization_id = ${org}) hits
      group by task_id) r
    join tasks t on t.id = r.task_id
    where t.organization_id = ${org} and ${sql.join(where, sql` and `)}`;
  const query = sql`with query as (select websearch_to_tsquery('simple', ${q.q}) as q)`;
  const limit = q.limit ?? TASK_PAGE;
  const offset = q.offset ?? 0;
  const rows = await queryRows<{ id: number; total: number }>(
    db,
    sql`${query} select t.id, count(*) over ()::int as total ${from} order by r.rank desc, t.id desc limit ${limit} offset ${offset}`,
  );
  let total = rows[0] ? Number(rows[0].total) : 0;
  if (rows.length === 0 && offset > 0) total = Number((await queryRows<{ n: number }>(db, sql`${query} select count(*)::int as n ${from}`))[0]?.n ?? 0);
  const records = await loadTaskRecords(db, org, rows.map((r) => Number(r.id)));
  return { items: records.map(presentTask), total };
}
