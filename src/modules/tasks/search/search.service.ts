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
 *
 * Best match first is exact: every match is ranked, since no index orders by ts_rank and a bounded
 * ranked set would drop better matches past its bound. What keeps a broad search (a word in most
 * of a 100,000-task organization) fast is what each match costs: the vectors are stored (nothing is
 * parsed again); a task's own match is ranked, filtered and given its chat's rank (a hash of the
 * few tasks found in chat) in the one pass over the tasks it comes from, and only tasks found
 * through chat alone are looked up again, by id (`= any(array(…))`: an index probe each, where a
 * join estimated from the chat's row count read every task); the matches are kept once and counted
 * there; the tsquery is a constant the planner estimates from the index's statistics. A plan whose
 * estimated cost passes jit_above_cost is compiled first on PostgreSQL (0.4 s here), so the shape
 * also keeps the estimate honest.
 */
export async function searchTasks(ctx: Ctx, q: SearchQueryDto): Promise<{ items: TaskDto[]; total: number }> {
  const { db, actor } = ctx;
  const org = actor.organizationId;
  const where: SQL[] = [q.archived ? sql`t.archived_at is not null` : sql`t.archived_at is null`, await readableTasksCondition(db, actor), ...statusIn(q.statuses)];
  if (q.spaceId !== undefined) where.push(inSpace(q.spaceId));
  if (q.projectId !== undefined) where.push(inProject(q.projectId));
  const query = sql`websearch_to_tsquery('simple', ${q.q})`;
  const filters = sql.join(where, sql` and `);
  const rows = await queryRows<{ id: number | null; total: number }>(
    db,
    sql`with said as materialized (
          select m.task_id, max(ts_rank(${messageVector}, ${query})) as rank from task_messages m
          where ${messageVector} @@ ${query} and m.organization_id = ${org} group by m.task_id),
        ranked as (
          select t.id, ts_rank(${taskVector}, ${query}) + coalesce(said.rank, 0) * 0.5 as rank
          from tasks t left join said on said.task_id = t.id
          where ${taskVector} @@ ${query} and t.organization_id = ${org} and ${filters}
          union all
          select t.id, said.rank * 0.5 from said join tasks t on t.id = said.task_id
          where t.id = any(array(select task_id from said)) and t.organization_id = ${org} and not (${taskVector} @@ ${query}) and ${filters})
        select p.id, c.total from (select count(*)::int as total from ranked) c
        left join lateral (select id from ranked order by rank desc, id desc limit ${q.limit ?? TASK_PAGE} offset ${q.offset ?? 0}) p on true`,
  );
  const total = Number(rows[0]?.total ?? 0);
  const ids = rows.filter((r) => r.id !== null).map((r) => Number(r.id));
  const records = await loadTaskRecords(db, org, ids);
  return { items: records.map(presentTask), total };
}
