import { sql, type SQL } from 'drizzle-orm';
import { idArray, queryRows } from '../../../db/client.js';
import type { Ctx } from '../../../platform/context.js';
import { readableTasksCondition } from '../actions/actions.policy.js';
import { TASK_PAGE } from '../actions/actions.schemas.js';
import { inProject, inSpace, statusIn } from '../filters.js';
import { loadTaskRecords, presentTask } from '../tasks.presenter.js';
import type { TaskDto } from '../tasks.schemas.js';
import type { SearchQueryDto } from './search.schemas.js';
import { messageVector, taskVector } from './search.vectors.js';

/**
 * How many of the newest matches are ranked. A search matching more answers these best match first,
 * then the older matches newest first: no index orders by ts_rank, and ranking all of a word in most
 * of a 100,000-task organization took 200 ms where ranking the newest thousand takes about one.
 * Equal to the default page, so a search's default first page is always the ranked one.
 */
export const RANKED_WINDOW = 1000;

/**
 * Up to this many tasks found in chat are tested as `id = any(…)`, which the planner can OR with the
 * index scan of a narrow word; more are tested as a hashed set (`in (select unnest(…))`), which a
 * scan of a broad word probes per row and which is estimated without a look at each element (an
 * array of 5,000 cost 8 ms of planning per statement).
 */
const FEW_SAID = 64;

/**
 * GET /tasks/search: full-text search (websearch_to_tsquery, 'simple') over task names and
 * descriptions and over chat texts, each through its GIN index. A task's rank is that of its own
 * text plus half the best of its messages, so a word in the name outweighs one said in chat, and a
 * long chat does not outweigh either. The task's own text and each message are matched apart (so
 * each can use its index): all words of the query must occur in one of them, and `-word` excludes
 * the text it occurs in, not the whole task. Only tasks the caller can read, filtered, paged.
 *
 * Best match first among the newest RANKED_WINDOW matches (all of them, for any but a broad
 * search), then the rest newest first: the window is taken in id order, which the primary key
 * gives without ranking anything, and only its tasks are ranked. A window not filled is every match,
 * so its size is the total; past that the exact total takes a second statement, what a broad search
 * costs (a visit of every match), which no longer ranks anything. The tsquery is a constant the
 * planner estimates from the index's statistics; a plan whose estimated cost passes jit_above_cost
 * is compiled first on PostgreSQL (0.4 s here), so the shape also keeps the estimate honest.
 */
export async function searchTasks(ctx: Ctx, q: SearchQueryDto): Promise<{ items: TaskDto[]; total: number }> {
  const { db, actor } = ctx;
  const org = actor.organizationId;
  const where: SQL[] = [q.archived ? sql`t.archived_at is not null` : sql`t.archived_at is null`, await readableTasksCondition(db, actor), ...statusIn(q.statuses)];
  if (q.spaceId !== undefined) where.push(inSpace(q.spaceId));
  if (q.projectId !== undefined) where.push(inProject(q.projectId));
  const query = sql`websearch_to_tsquery('simple', ${q.q})`;
  const filters = sql.join(where, sql` and `);
  const limit = q.limit ?? TASK_PAGE;
  const offset = q.offset ?? 0;
  // The tasks found in chat, as a constant: the planner hashes a constant array, so one pass over
  // the tasks tests "own text or chat" for a broad word, and ORs two index scans for a narrow one.
  const said = (
    await queryRows<{ id: number }>(
      db,
      sql`select distinct m.task_id as id from task_messages m where ${messageVector} @@ ${query} and m.organization_id = ${org}`,
    )
  ).map((r) => Number(r.id));
  const saidIds = idArray(said);
  const inSaid = (id: SQL) => (said.length <= FEW_SAID ? sql`${id} = any(${saidIds})` : sql`${id} in (select unnest(${saidIds}))`);
  const found = said.length === 0 ? sql`${taskVector} @@ ${query}` : sql`(${taskVector} @@ ${query} or ${inSaid(sql`t.id`)})`;
  const matches = (newest: number, below: SQL = sql`true`) =>
    sql`select t.id, ${taskVector} as v from tasks t where ${found} and t.organization_id = ${org} and ${below} and ${filters} order by t.id desc limit ${newest}`;
  // Past the window: the older matches, newest first, as far as the page reaches.
  const rest =
    offset + limit > RANKED_WINDOW ? sql`union all select id, 1, 0 from (${matches(offset + limit - RANKED_WINDOW, sql`t.id < (select min(id) from win)`)}) older` : sql``;
  // A task found through chat ranks by half its best message; its own text adds only where it matches.
  const chatRank =
    said.length > 0
      ? sql`case when ${inSaid(sql`w.id`)} then (select max(ts_rank(${messageVector}, ${query})) from task_messages m
          where m.task_id = w.id and ${messageVector} @@ ${query}) * 0.5 else 0 end`
      : sql`0`;
  const page = await queryRows<{ id: number | null; ranked: number }>(
    db,
    sql`with win as materialized (${matches(RANKED_WINDOW)}),
        ranked as (select w.id, case when w.v @@ ${query} then ts_rank(w.v, ${query}) else 0 end + ${chatRank} as rank from win w)
        select p.id, c.ranked from (select count(*)::int as ranked from win) c
        left join lateral (
          select id from (select id, 0 as part, rank from ranked ${rest}) x
          order by part, rank desc, id desc limit ${limit} offset ${offset}) p on true`,
  );
  // A window not filled holds every match; a full one needs the count of all (a visit of each match).
  const ranked = Number(page[0]?.ranked ?? 0);
  const total =
    ranked < RANKED_WINDOW
      ? ranked
      : Number((await queryRows<{ total: number }>(db, sql`select count(*) as total from tasks t where ${found} and t.organization_id = ${org} and ${filters}`))[0]?.total ?? 0);
  const ids = page.filter((r) => r.id !== null).map((r) => Number(r.id));
  const records = await loadTaskRecords(db, org, ids);
  return { items: records.map(presentTask), total };
}
