import { sql, type SQL } from 'drizzle-orm';
import { idArray, queryRows, type Queryable } from '../../../db/client.js';

/**
 * Task positions in a column are stored as ranks with gaps (`task_stages.order`), and the dense
 * 0..n-1 `order` the API shows is computed at read (rank, then task id, breaks ties). Placing a task
 * writes only its own row: an append takes the column's highest rank plus a gap, an insertion the
 * a rank between its neighbours. So the column's row lock is not needed to keep positions
 * consistent, and writers of one column no longer queue behind each other until COMMIT (before,
 * every placement renumbered the column under that lock: inserting at the top of a 1,000-task column
 * rewrote 1,000 rows). Only when neighbours leave no room (a run of insertions at one spot) is the
 * column renumbered with fresh gaps, under its lock.
 */

/** Room left between ranks: ten halvings at one spot before a column is renumbered. */
export const RANK_GAP = 1024;
// `order` is a 32-bit integer: ranks stay inside it, a column is renumbered before they would not.
const MAX_RANK = 2_000_000_000;

/**
 * Puts `taskIds` at dense `position` among the column's other tasks (default and past the end:
 * appended), in the order given. Their rows are already in the column with rank null, or, with
 * `enteringFrom` (the column's project), anywhere in that project: they enter the column by the
 * same statement that ranks them. Answers whether the first statement it sent placed them all (a
 * statement sent behind it in the same round trip then reads them placed).
 */
export async function placeByRank(db: Queryable, stageId: number, taskIds: number[], position: number | undefined, enteringFrom?: number): Promise<boolean> {
  if (taskIds.length === 0) return true;
  const ids = idArray(taskIds);
  const k = taskIds.length;
  const rows: Rows = enteringFrom === undefined ? { stageId } : { stageId, projectId: enteringFrom };
  if (position === undefined) {
    if (await append(db, rows, taskIds)) return true;
    await renumberPlacing(db, rows, taskIds, position);
    return false;
  }
  const at = Math.max(0, position);
  if (k === 1) {
    // One task (the commonest move): its rank drawn and written by the statement that reads the
    // neighbours, as spread() draws it; no row comes back when there is no room.
    const placed = await queryRows(
      db,
      sql`with r as (${oneRankSql(stageId, ids, at)})
          update task_stages t set ${entering(rows)}"order" = r.rank from r
          where ${placedRows(rows)} and t.task_id = ${taskIds[0]}
          returning t.task_id`,
      { prepare: rows.projectId === undefined ? 'rank-place-one' : 'rank-place-one-entering' },
    );
    if (placed.length === 1) return true;
    await renumberPlacing(db, rows, taskIds, position);
    return false;
  }
  const [n] = await queryRows<{ lo: number | null; hi: number | null; top: number | null }>(db, neighboursSql(stageId, ids, at), { prepare: 'rank-neighbours' });
  const ranks = spread(at, n?.lo ?? null, n?.hi ?? null, n?.top ?? null, k);
  if (ranks) await writeRanks(db, rows, taskIds, ranks);
  else await renumberPlacing(db, rows, taskIds, position);
  return false;
}

/**
 * The neighbours of dense position `at` among the column's tasks other than `ids`: the ranks just
 * before and at it (`lo`, `hi`), and the highest (`top`, past the end). Each walks the (stage_id,
 * order) index from its end, so a placement reads `at` entries of the column, not all of them (as a
 * CTE shared by the three, the column was read whole and sorted twice: 3.5-5.5 ms for a 6,750-task
 * column against 0.4-0.6 ms, position 10).
 */
function neighboursSql(stageId: number, ids: SQL, at: number): SQL {
  const others = sql`from task_stages where stage_id = ${stageId} and "order" is not null and task_id <> all(${ids})`;
  return sql`select (select "order" ${others} order by "order", task_id offset ${Math.max(at - 1, 0)} limit 1)::bigint as lo,
                    (select "order" ${others} order by "order", task_id offset ${at} limit 1)::bigint as hi,
                    (select max("order") ${others})::bigint as top`;
}

/**
 * spread() for one task, in SQL over the neighbours `n`: the rank, or null when there is no room.
 * Between neighbours it takes the middle, moved by up to an eighth of the room (`w`) either way.
 */
const spreadOneSql = (at: number): SQL =>
  sql.raw(`select case
    when n.hi is null then coalesce(n.top, ${-RANK_GAP}) + 1 + floor(random() * ${RANK_GAP - 1})::bigint
    ${
      at === 0
        ? `else n.hi - ${RANK_GAP} - floor(random() * ${RANK_GAP - 1})::bigint`
        : `when n.hi - n.lo < 2 then null
    else n.lo + (n.hi - n.lo) / 2 + case when x.w > 0 then floor(random() * 2 * x.w)::bigint - x.w else 0 end`
    }
  end as rank from n, lateral (select (n.hi - n.lo) / 8 as w) x`);

/**
 * The rank of one task placed at dense position `at` among the column's tasks other than `ids`
 * (spread() for one task; `n` is materialized so that the neighbours are read once); no row when
 * there is no room.
 */
const oneRankSql = (stageId: number, ids: SQL, at: number): SQL =>
  sql`with n as materialized (${neighboursSql(stageId, ids, at)}), drawn as (${spreadOneSql(at)})
      select drawn.rank from drawn where abs(drawn.rank) <= ${MAX_RANK}`;

/** The placed rows: in the column, or (entering it) the tasks' rows in its project. */
type Rows = { stageId: number; projectId?: number };
const placedRows = (r: Rows) => (r.projectId === undefined ? sql`t.stage_id = ${r.stageId}` : sql`t.project_id = ${r.projectId}`);
const entering = (r: Rows) => (r.projectId === undefined ? sql`` : sql`stage_id = ${r.stageId}, `);

/**
 * The commonest placement, a new task at the end, in one statement: one gap each after the highest
 * rank, drawn within it as spread() does. False when the ranks would leave the integer range.
 */
async function append(db: Queryable, rows: Rows, taskIds: number[]): Promise<boolean> {
  const placed = await queryRows<{ k: number }>(
    db,
    sql`update task_stages t set ${entering(rows)}"order" = m.top + (u.i - 1)::int * ${RANK_GAP}::int + 1 + floor(random() * ${RANK_GAP - 1})::int
        from (select coalesce(max("order"), ${-RANK_GAP}::int) as top from task_stages
              where stage_id = ${rows.stageId} and "order" is not null and task_id <> all(${idArray(taskIds)})) m,
             unnest(${idArray(taskIds)}) with ordinality as u(k, i)
        where ${placedRows(rows)} and t.task_id = u.k and m.top::bigint + ${taskIds.length * RANK_GAP} <= ${MAX_RANK}
        returning t.task_id as k`,
    { prepare: rows.projectId === undefined ? 'rank-append' : 'rank-append-entering' },
  );
  return placed.length === taskIds.length;
}

/**
 * SQL: a rank after the column's highest, drawn within one gap as append() does, for a statement
 * that inserts a task's placement itself; null when it would leave the integer range (then place
 * the row, inserted without a rank, with placeByRank).
 */
export const appendedRankSql = (stageId: number): SQL =>
  sql`(select case when m.top::bigint + ${RANK_GAP} <= ${MAX_RANK} then m.top + 1 + floor(random() * ${RANK_GAP - 1})::int end
       from (select coalesce(max("order"), ${-RANK_GAP}::int) as top from task_stages where stage_id = ${stageId} and "order" is not null) m)`;

/**
 * SQL: the rank of a new task at dense `position` (as placeByRank draws it for one task), for a
 * statement that inserts the placement itself; null when there is no room (then place the row,
 * inserted without a rank, with placeByRank).
 */
export const insertedRankSql = (stageId: number, position: number): SQL => sql`(${oneRankSql(stageId, idArray([]), Math.max(0, position))})::int`;

/**
 * k ranks strictly between the neighbours, or null when there is no room for them. Each is drawn at
 * random within its share of the room, so that concurrent placements at one spot (which read the
 * same neighbours) rarely take the same rank: ranks are unique per column (checked per statement), and
 * the rare clash is retried as a whole transaction (db/tx.ts).
 */
function spread(at: number, lo: number | null, hi: number | null, top: number | null, k: number): number[] | null {
  const rand = (n: number) => (n > 1 ? Math.floor(Math.random() * n) : 0);
  let ranks: number[];
  if (hi === null) {
    // Past the end: appended after the highest rank, one gap each.
    const last = Number(top ?? -RANK_GAP);
    ranks = Array.from({ length: k }, (_, i) => last + i * RANK_GAP + 1 + rand(RANK_GAP - 1));
  } else if (at === 0) {
    ranks = Array.from({ length: k }, (_, i) => Number(hi) - (k - i) * RANK_GAP - rand(RANK_GAP - 1));
  } else {
    const a = Number(lo);
    const step = (Number(hi) - a) / (k + 1);
    if (step < 1) return null;
    const wobble = Math.floor(step / 4);
    ranks = Array.from({ length: k }, (_, i) => a + Math.floor(step * (i + 1)) + (wobble > 0 ? rand(2 * wobble) - wobble : 0));
  }
  return ranks.every((r) => Math.abs(r) <= MAX_RANK) ? ranks : null;
}

async function writeRanks(db: Queryable, rows: Rows, taskIds: number[], ranks: number[]): Promise<void> {
  await queryRows(
    db,
    sql`update task_stages t set ${entering(rows)}"order" = u.r
        from unnest(${idArray(taskIds)}, ${`{${ranks.join(',')}}`}::int[]) as u(k, r)
        where ${placedRows(rows)} and t.task_id = u.k`,
    { prepare: 'rank-write' },
  );
}

/**
 * Writes the whole column afresh, one gap apart, with the placed tasks at `position` (default: the
 * end): under the column's lock, so that two renumberings do not interleave. Rows whose rank does
 * not change are not written.
 */
async function renumberPlacing(db: Queryable, rows: Rows, taskIds: number[], position: number | undefined): Promise<void> {
  const { stageId } = rows;
  const ids = idArray(taskIds);
  // Entering tasks lock the columns they leave with the one they enter, all by id. Two moves
  // crossing between two columns, each renumbering the column it enters, otherwise deadlocked: each
  // renumber's snapshot still shows the other's task in its column, and waits for that row.
  await db.execute(
    rows.projectId === undefined
      ? sql`select id from stages where id = ${stageId} for no key update`
      : sql`select id from stages where id = ${stageId} or id in (select stage_id from task_stages where project_id = ${rows.projectId} and task_id = any(${ids}))
            order by id for no key update`,
  );
  if (rows.projectId !== undefined) {
    await db.execute(sql`update task_stages t set stage_id = ${stageId}, "order" = null where ${placedRows(rows)} and t.task_id = any(${ids})`);
  }
  await db.execute(
    sql`with staying as (
          select task_id as k, (row_number() over (order by "order", task_id) - 1)::int as r
          from task_stages where stage_id = ${stageId} and "order" is not null and task_id <> all(${ids})),
        at as (select least(greatest(${position ?? null}::int, 0), count(*))::int as p, count(*)::int as n from staying),
        target as (
          select k, case when r < coalesce(at.p, at.n) then r else r + ${taskIds.length}::int end as pos from staying, at
          union all
          select u.k, coalesce(at.p, at.n) + (u.i - 1)::int from unnest(${ids}) with ordinality as u(k, i), at)
        update task_stages t set "order" = (target.pos + 1) * ${RANK_GAP}::int from target
        where t.stage_id = ${stageId} and t.task_id = target.k and t."order" is distinct from (target.pos + 1) * ${RANK_GAP}::int`,
  );
}

/**
 * The dense position (0..n-1) of placement `ts` in its column: the tasks before it by rank, then
 * task id, counted on the (stage_id, order) index. What the API shows as a placement's `order`.
 */
export const denseOrderOf = (ts: string) => {
  const t = sql.raw(ts);
  return sql`(select count(*) from task_stages o where o.stage_id = ${t}.stage_id and o."order" < ${t}."order")
    + (select count(*) from task_stages o where o.stage_id = ${t}.stage_id and o."order" = ${t}."order" and o.task_id < ${t}.task_id)`;
};

/** A task's dense position in a column, as the API shows it; null when it has none there. */
export async function densePosition(db: Queryable, stageId: number, taskId: number): Promise<number | null> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`select ${denseOrderOf('ts')} as n from task_stages ts
        where ts.stage_id = ${stageId} and ts.task_id = ${taskId} and ts."order" is not null`,
  );
  return row ? Number(row.n) : null;
}
