-- The analytics sync (0013, 0017) deleted every ledger row of a synced task and inserted them all
-- again, and each task keeps one row per stay in a column: a task moved a few hundred times rewrote
-- hundreds of rows (and five indexes) on every move, a fifth of the database's work under moves.
-- It now writes only the difference; analytics_sync as in 0017 otherwise.
CREATE OR REPLACE FUNCTION analytics_sync(ids bigint[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  done bigint;
BEGIN
  WITH
  t AS (
    SELECT t.id, t.organization_id, t.status, t.plan_time, t.created_at, t.archived_at,
      coalesce(t.date_end, (t.date_end_without_time + 1)::timestamp AT TIME ZONE 'UTC') AS deadline
    FROM tasks t WHERE t.id = ANY(ids)),
  m AS (
    SELECT ts.task_id, ts.project_id, ts.stage_id, count(*) OVER (PARTITION BY ts.task_id) > 1 AS multi
    FROM task_stages ts WHERE ts.task_id = ANY(ids)),
  dl AS (
    SELECT st.task_id, st.project_id, st.stage_id, min(st.left_at) AS at FROM task_stage_stays st
    WHERE st.task_id = ANY(ids) AND st.left_at IS NOT NULL GROUP BY 1, 2, 3),
  dep AS (SELECT d.task_id, d.project_id, jsonb_object_agg(d.stage_id::text, d.at) AS departures FROM dl d GROUP BY 1, 2),
  a AS (SELECT ta.task_id, array_agg(ta.user_id ORDER BY ta.user_id) AS users FROM task_assignees ta WHERE ta.task_id = ANY(ids) GROUP BY ta.task_id),
  base AS (
    SELECT t.*, m.project_id, m.stage_id, m.multi, coalesce(a.users, '{}') AS assignees, t.archived_at IS NOT NULL AS archived
    FROM t JOIN m ON m.task_id = t.id LEFT JOIN a ON a.task_id = t.id),
  -- The status history, opened by a status 0 from the beginning of time: before its first recorded
  -- change a task counts as in work, as the reports define it.
  ch AS (
    SELECT c.id, c.task_id, c.status, c.at FROM task_status_changes c WHERE c.task_id = ANY(ids)
    UNION ALL SELECT 0, t.id, 0, '-infinity'::timestamptz FROM t),
  c AS (
    SELECT ch.task_id, ch.status, ch.at,
      lag(ch.at) OVER (PARTITION BY ch.task_id, ch.status ORDER BY ch.at, ch.id) AS prev_same,
      lead(ch.at) OVER (PARTITION BY ch.task_id ORDER BY ch.at, ch.id) AS next
    FROM ch),
  facts (task_id, organization_id, project_id, kind, stage_id, status, user_id, assignees, archived, multi, at, until, prev_at, value, departures) AS (
    SELECT b.id, b.organization_id, b.project_id, 0, b.stage_id, b.status, NULL::bigint, b.assignees, b.archived, b.multi,
      NULL::timestamptz, NULL::timestamptz, NULL::timestamptz, b.plan_time, NULL::jsonb FROM base b
    UNION ALL
    SELECT b.id, b.organization_id, b.project_id, 1, NULL, NULL, NULL, b.assignees, b.archived, b.multi, b.created_at, NULL, NULL, 0, NULL FROM base b
    UNION ALL
    -- A change to done also carries the cycle time from the project's first column as it is now; a
    -- report finding another column first reads the departures instead.
    SELECT b.id, b.organization_id, b.project_id, CASE c.status WHEN 1 THEN 2 ELSE 3 END, CASE WHEN c.status = 1 THEN fc.id END, c.status, NULL,
      b.assignees, b.archived, b.multi, c.at, b.created_at, c.prev_same,
      CASE WHEN c.status = 1 THEN coalesce(date_part('epoch', c.at - d1.at) / 86400, 0) ELSE 0 END, CASE WHEN c.status = 1 THEN dep.departures END
    FROM base b JOIN c ON c.task_id = b.id AND c.status IN (1, 2) LEFT JOIN dep ON dep.task_id = b.id AND dep.project_id = b.project_id
      LEFT JOIN LATERAL (SELECT s.id FROM stages s WHERE s.project_id = b.project_id ORDER BY s."order", s.id LIMIT 1) fc ON true
      LEFT JOIN dl d1 ON d1.task_id = b.id AND d1.project_id = b.project_id AND d1.stage_id = fc.id
    UNION ALL
    -- Overdue at m: created and deadline before m, and neither done nor rejected then, i.e. m in
    -- (start, next change] of an open stretch, start being the latest of its change, the deadline and creation.
    SELECT b.id, b.organization_id, b.project_id, 4, NULL, NULL, NULL, b.assignees, b.archived, b.multi, x.start, c.next, NULL, 0, NULL
    FROM base b JOIN c ON c.task_id = b.id AND c.status NOT IN (1, 2)
      CROSS JOIN LATERAL (SELECT greatest(c.at, b.deadline, b.created_at) AS start) x
    WHERE b.deadline IS NOT NULL AND (c.next IS NULL OR c.next > x.start)
    UNION ALL
    SELECT b.id, b.organization_id, b.project_id, 5, NULL, NULL, r.user_id, b.assignees, b.archived, b.multi,
      r.date::timestamp AT TIME ZONE 'UTC', NULL, NULL, r.hours, NULL
    FROM base b JOIN time_records r ON r.task_id = b.id
    UNION ALL
    -- Stays belong to the project they were in, whether or not the task still is.
    SELECT t.id, t.organization_id, st.project_id, 6, st.stage_id, NULL, NULL, '{}'::bigint[], false, false, st.entered_at, e.ended, NULL, 0, NULL
    FROM t JOIN task_stage_stays st ON st.task_id = t.id CROSS JOIN LATERAL (SELECT least(st.left_at, t.archived_at) AS ended) e
    WHERE e.ended IS NULL OR e.ended > st.entered_at
    UNION ALL
    -- Each stay that ended by leaving, on the day it ended, with its length (the project report's average days in a column).
    SELECT t.id, t.organization_id, st.project_id, 7, st.stage_id, NULL, NULL, '{}'::bigint[], false, false, st.left_at, NULL, NULL,
      date_part('epoch', st.left_at - st.entered_at), NULL
    FROM t JOIN task_stage_stays st ON st.task_id = t.id WHERE st.left_at IS NOT NULL),
  -- Only the facts that changed are written: the ledger's rows and the new facts are matched by
  -- their text (equal text, equal values), identical rows numbered so that duplicates count, and
  -- what the two have in common is left alone. A move changes two or three facts of a task whose
  -- stays alone may be hundreds. The rollups get the same sums as from deleting and inserting all.
  cur AS (
    SELECT f.ctid AS rid, f::text AS key, row_number() OVER (PARTITION BY f::text) AS n
    FROM analytics_facts f WHERE f.task_id = ANY(ids)),
  -- The new facts as rows of the ledger's own types, so that equal values have equal text.
  nxt AS (
    SELECT x.*, k.key, row_number() OVER (PARTITION BY k.key) AS n
    FROM facts x CROSS JOIN LATERAL (SELECT row(x.task_id::bigint, x.organization_id::bigint, x.project_id::bigint, x.kind::smallint, x.stage_id::bigint, x.status::smallint, x.user_id::bigint, x.assignees::bigint[], x.archived, x.multi, x.at::timestamptz, x.until::timestamptz, x.prev_at::timestamptz, x.value::double precision, x.departures::jsonb)::text AS key) k),
  old AS (
    DELETE FROM analytics_facts f WHERE f.task_id = ANY(ids)
      AND f.ctid = ANY(array(SELECT c.rid FROM cur c LEFT JOIN nxt x ON x.key = c.key AND x.n = c.n WHERE x.key IS NULL))
    RETURNING f.*),
  new AS (
    INSERT INTO analytics_facts (task_id, organization_id, project_id, kind, stage_id, status, user_id, assignees, archived, multi, at, until, prev_at, value, departures)
    SELECT x.task_id, x.organization_id, x.project_id, x.kind, x.stage_id, x.status, x.user_id, x.assignees, x.archived, x.multi, x.at, x.until, x.prev_at, x.value, x.departures
    FROM nxt x LEFT JOIN cur c ON c.key = x.key AND c.n = x.n WHERE c.key IS NULL
    RETURNING *),
  delta AS (SELECT -1 AS sign, o.* FROM old o UNION ALL SELECT 1, n.* FROM new n),
  -- Each fact counts for all tasks (0) and for each assignee, in the whole scope (assignee 0) and
  -- in each assignee's own; hours go to whoever recorded them.
  expanded AS (
    SELECT d.sign, d.organization_id, d.project_id, ax.id AS assignee_id, ux.id AS user_id, d.kind, d.stage_id, d.status, d.archived, d.at, d.until, d.value
    FROM delta d
      CROSS JOIN LATERAL unnest(array[0::bigint] || d.assignees) ax(id)
      CROSS JOIN LATERAL unnest(array[0::bigint] || CASE WHEN d.kind <> 5 THEN d.assignees WHEN d.user_id IS NULL THEN '{}'::bigint[] ELSE array[d.user_id] END) ux(id)
    WHERE d.kind < 6),
  counts AS (
    INSERT INTO analytics_counts AS r (organization_id, project_id, assignee_id, user_id, stage_id, status, archived, tasks, plan_time)
    SELECT e.organization_id, e.project_id, e.assignee_id, e.user_id, e.stage_id, e.status, e.archived, sum(e.sign)::int, sum(e.sign * e.value::numeric)
    FROM expanded e WHERE e.kind = 0 AND EXISTS (SELECT 1 FROM projects p WHERE p.id = e.project_id)
    GROUP BY 1, 2, 3, 4, 5, 6, 7 HAVING sum(e.sign) <> 0 OR sum(e.sign * e.value::numeric) <> 0
    ORDER BY 2, 3, 4, 5, 6, 7
    ON CONFLICT (project_id, assignee_id, user_id, stage_id, status, archived)
      DO UPDATE SET tasks = r.tasks + excluded.tasks, plan_time = r.plan_time + excluded.plan_time
    RETURNING 1),
  marks AS (
    SELECT e.organization_id, e.project_id, e.assignee_id, e.user_id, e.archived, (e.at AT TIME ZONE 'UTC')::date AS day, e.kind, e.sign, e.value
    FROM expanded e WHERE e.kind BETWEEN 1 AND 5
    UNION ALL
    SELECT e.organization_id, e.project_id, e.assignee_id, e.user_id, e.archived, (e.until AT TIME ZONE 'UTC')::date, e.kind, -e.sign, 0
    FROM expanded e WHERE e.kind = 4 AND e.until IS NOT NULL),
  days AS (
    INSERT INTO analytics_days AS r (organization_id, project_id, assignee_id, user_id, archived, day, created, finished, rejected, overdue, hours)
    SELECT * FROM (
      SELECT k.organization_id, k.project_id, k.assignee_id, k.user_id, k.archived, k.day,
        coalesce(sum(k.sign) FILTER (WHERE k.kind = 1), 0)::int AS created, coalesce(sum(k.sign) FILTER (WHERE k.kind = 2), 0)::int AS finished,
        coalesce(sum(k.sign) FILTER (WHERE k.kind = 3), 0)::int AS rejected, coalesce(sum(k.sign) FILTER (WHERE k.kind = 4), 0)::int AS overdue,
        coalesce(sum(k.sign * k.value::numeric) FILTER (WHERE k.kind = 5), 0) AS hours
      FROM marks k WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = k.project_id)
      GROUP BY 1, 2, 3, 4, 5, 6) g
    WHERE g.created <> 0 OR g.finished <> 0 OR g.rejected <> 0 OR g.overdue <> 0 OR g.hours <> 0
    ORDER BY 2, 3, 4, 5, 6
    ON CONFLICT (project_id, assignee_id, user_id, archived, day) DO UPDATE SET created = r.created + excluded.created,
      finished = r.finished + excluded.finished, rejected = r.rejected + excluded.rejected, overdue = r.overdue + excluded.overdue,
      hours = r.hours + excluded.hours
    RETURNING 1),
  flow AS (
    INSERT INTO analytics_flow AS r (organization_id, project_id, stage_id, day, delta, stays_ended, stay_seconds)
    SELECT * FROM (
      SELECT k.organization_id, k.project_id, k.stage_id, k.day, coalesce(sum(k.sign) FILTER (WHERE k.kind = 6), 0)::int AS delta,
        coalesce(sum(k.sign) FILTER (WHERE k.kind = 7), 0)::int AS ended, coalesce(sum(k.sign * k.value::numeric) FILTER (WHERE k.kind = 7), 0) AS seconds
      FROM (
        SELECT d.organization_id, d.project_id, d.stage_id, (d.at AT TIME ZONE 'UTC')::date AS day, d.kind, d.sign, d.value FROM delta d WHERE d.kind IN (6, 7)
        UNION ALL
        SELECT d.organization_id, d.project_id, d.stage_id, (d.until AT TIME ZONE 'UTC')::date, d.kind, -d.sign, 0 FROM delta d WHERE d.kind = 6 AND d.until IS NOT NULL) k
      WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = k.project_id)
      GROUP BY 1, 2, 3, 4) g
    WHERE g.delta <> 0 OR g.ended <> 0 OR g.seconds <> 0
    ORDER BY 2, 3, 4
    ON CONFLICT (project_id, stage_id, day) DO UPDATE SET delta = r.delta + excluded.delta,
      stays_ended = r.stays_ended + excluded.stays_ended, stay_seconds = r.stay_seconds + excluded.stay_seconds
    RETURNING 1)
  SELECT (SELECT count(*) FROM counts) + (SELECT count(*) FROM days) + (SELECT count(*) FROM flow) INTO done;
END $$;
