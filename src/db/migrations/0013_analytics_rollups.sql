CREATE TABLE "analytics_counts" (
	"organization_id" bigint NOT NULL,
	"project_id" bigint NOT NULL,
	"assignee_id" bigint NOT NULL,
	"user_id" bigint NOT NULL,
	"stage_id" bigint NOT NULL,
	"status" smallint NOT NULL,
	"archived" boolean NOT NULL,
	"tasks" integer NOT NULL,
	"plan_time" numeric NOT NULL,
	CONSTRAINT "analytics_counts_project_id_assignee_id_user_id_stage_id_status_archived_pk" PRIMARY KEY("project_id","assignee_id","user_id","stage_id","status","archived")
);
--> statement-breakpoint
CREATE TABLE "analytics_days" (
	"organization_id" bigint NOT NULL,
	"project_id" bigint NOT NULL,
	"assignee_id" bigint NOT NULL,
	"user_id" bigint NOT NULL,
	"day" date NOT NULL,
	"archived" boolean NOT NULL,
	"created" integer NOT NULL,
	"finished" integer NOT NULL,
	"rejected" integer NOT NULL,
	"overdue" integer NOT NULL,
	"hours" numeric NOT NULL,
	CONSTRAINT "analytics_days_project_id_assignee_id_user_id_archived_day_pk" PRIMARY KEY("project_id","assignee_id","user_id","archived","day")
);
--> statement-breakpoint
CREATE TABLE "analytics_facts" (
	"task_id" bigint NOT NULL,
	"organization_id" bigint NOT NULL,
	"project_id" bigint NOT NULL,
	"kind" smallint NOT NULL,
	"stage_id" bigint,
	"status" smallint,
	"user_id" bigint,
	"assignees" bigint[] NOT NULL,
	"archived" boolean NOT NULL,
	"multi" boolean NOT NULL,
	"at" timestamp with time zone,
	"until" timestamp with time zone,
	"prev_at" timestamp with time zone,
	"value" double precision NOT NULL,
	"departures" jsonb
);
--> statement-breakpoint
CREATE TABLE "analytics_flow" (
	"organization_id" bigint NOT NULL,
	"project_id" bigint NOT NULL,
	"stage_id" bigint NOT NULL,
	"day" date NOT NULL,
	"delta" integer NOT NULL,
	CONSTRAINT "analytics_flow_project_id_stage_id_day_pk" PRIMARY KEY("project_id","stage_id","day")
);
--> statement-breakpoint
ALTER TABLE "analytics_counts" ADD CONSTRAINT "analytics_counts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_counts" ADD CONSTRAINT "analytics_counts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_days" ADD CONSTRAINT "analytics_days_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_days" ADD CONSTRAINT "analytics_days_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_flow" ADD CONSTRAINT "analytics_flow_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_flow" ADD CONSTRAINT "analytics_flow_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "analytics_facts_task_idx" ON "analytics_facts" USING btree ("task_id");--> statement-breakpoint
CREATE INDEX "analytics_facts_at_idx" ON "analytics_facts" USING btree ("project_id","kind","at");--> statement-breakpoint
CREATE INDEX "analytics_facts_until_idx" ON "analytics_facts" USING btree ("project_id","kind","until") WHERE "analytics_facts"."until" is not null;--> statement-breakpoint
CREATE INDEX "analytics_facts_repeat_idx" ON "analytics_facts" USING btree ("project_id","at") WHERE "analytics_facts"."prev_at" is not null;--> statement-breakpoint
CREATE INDEX "analytics_facts_multi_idx" ON "analytics_facts" USING btree ("project_id") WHERE "analytics_facts"."multi";--> statement-breakpoint
CREATE INDEX "task_stage_stays_left_idx" ON "task_stage_stays" USING btree ("project_id","left_at","stage_id","entered_at") WHERE "task_stage_stays"."left_at" is not null;--> statement-breakpoint
-- Replaces the ledger rows of `ids` with what their rows say now and adds the difference to the
-- rollups, in key order (concurrent writers then lock rollup rows in the same order). Idempotent:
-- triggers call it after each statement that touches a task's facts, so the last call sees the final
-- state whatever order cascades run in. A deleted task has no rows any more: its ledger is subtracted.
CREATE FUNCTION analytics_sync(ids bigint[]) RETURNS void LANGUAGE plpgsql AS $$
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
  dep AS (
    SELECT d.task_id, d.project_id, jsonb_object_agg(d.stage_id::text, d.at) AS departures
    FROM (SELECT st.task_id, st.project_id, st.stage_id, min(st.left_at) AS at FROM task_stage_stays st
          WHERE st.task_id = ANY(ids) AND st.left_at IS NOT NULL GROUP BY 1, 2, 3) d
    GROUP BY 1, 2),
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
    SELECT b.id, b.organization_id, b.project_id, CASE c.status WHEN 1 THEN 2 ELSE 3 END, NULL, c.status, NULL, b.assignees, b.archived, b.multi,
      c.at, b.created_at, c.prev_same, 0, CASE WHEN c.status = 1 THEN dep.departures END
    FROM base b JOIN c ON c.task_id = b.id AND c.status IN (1, 2) LEFT JOIN dep ON dep.task_id = b.id AND dep.project_id = b.project_id
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
    WHERE e.ended IS NULL OR e.ended > st.entered_at),
  old AS (DELETE FROM analytics_facts f WHERE f.task_id = ANY(ids) RETURNING f.*),
  new AS (
    INSERT INTO analytics_facts (task_id, organization_id, project_id, kind, stage_id, status, user_id, assignees, archived, multi, at, until, prev_at, value, departures)
    SELECT * FROM facts RETURNING *),
  delta AS (SELECT -1 AS sign, o.* FROM old o UNION ALL SELECT 1, n.* FROM new n),
  -- Each fact counts for all tasks (0) and for each assignee, in the whole scope (assignee 0) and
  -- in each assignee's own; hours go to whoever recorded them.
  expanded AS (
    SELECT d.sign, d.organization_id, d.project_id, ax.id AS assignee_id, ux.id AS user_id, d.kind, d.stage_id, d.status, d.archived, d.at, d.until, d.value
    FROM delta d
      CROSS JOIN LATERAL unnest(array[0::bigint] || d.assignees) ax(id)
      CROSS JOIN LATERAL unnest(array[0::bigint] || CASE WHEN d.kind <> 5 THEN d.assignees WHEN d.user_id IS NULL THEN '{}'::bigint[] ELSE array[d.user_id] END) ux(id)
    WHERE d.kind <> 6),
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
    INSERT INTO analytics_flow AS r (organization_id, project_id, stage_id, day, delta)
    SELECT k.organization_id, k.project_id, k.stage_id, k.day, sum(k.sign)::int
    FROM (
      SELECT d.organization_id, d.project_id, d.stage_id, (d.at AT TIME ZONE 'UTC')::date AS day, d.sign FROM delta d WHERE d.kind = 6
      UNION ALL
      SELECT d.organization_id, d.project_id, d.stage_id, (d.until AT TIME ZONE 'UTC')::date, -d.sign FROM delta d WHERE d.kind = 6 AND d.until IS NOT NULL) k
    WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = k.project_id)
    GROUP BY 1, 2, 3, 4 HAVING sum(k.sign) <> 0
    ORDER BY 2, 3, 4
    ON CONFLICT (project_id, stage_id, day) DO UPDATE SET delta = r.delta + excluded.delta
    RETURNING 1)
  SELECT (SELECT count(*) FROM counts) + (SELECT count(*) FROM days) + (SELECT count(*) FROM flow) INTO done;
END $$;
--> statement-breakpoint
-- Bulk loads (the benchmark's seed) set workboard.analytics_sync = off, then sync every task once.
CREATE FUNCTION analytics_sync_statement() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('workboard.analytics_sync', true) = 'off' THEN RETURN NULL; END IF;
  IF TG_TABLE_NAME = 'tasks' THEN
    PERFORM analytics_sync(array(SELECT DISTINCT id FROM changed));
  ELSE
    PERFORM analytics_sync(array(SELECT DISTINCT task_id FROM changed));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION analytics_sync_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('workboard.analytics_sync', true) = 'off' THEN RETURN NULL; END IF;
  IF TG_TABLE_NAME = 'tasks' THEN
    PERFORM analytics_sync(array[NEW.id]);
  ELSIF OLD.task_id = NEW.task_id THEN
    PERFORM analytics_sync(array[NEW.task_id]);
  ELSE
    PERFORM analytics_sync(array[OLD.task_id, NEW.task_id]);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Inserts and deletes sync once per statement (bulk moves, imports, cascades); updates once per row,
-- and only when a column a fact is made of changed (renumbering positions never syncs).
CREATE TRIGGER tasks_analytics_insert AFTER INSERT ON tasks REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_sync_statement();
--> statement-breakpoint
CREATE TRIGGER tasks_analytics_delete AFTER DELETE ON tasks REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_sync_statement();
--> statement-breakpoint
CREATE TRIGGER tasks_analytics_update AFTER UPDATE ON tasks FOR EACH ROW
  WHEN ((OLD.status, OLD.archived_at, OLD.plan_time, OLD.created_at, OLD.date_end, OLD.date_end_without_time)
    IS DISTINCT FROM (NEW.status, NEW.archived_at, NEW.plan_time, NEW.created_at, NEW.date_end, NEW.date_end_without_time))
  EXECUTE FUNCTION analytics_sync_row();
--> statement-breakpoint
CREATE TRIGGER task_stages_analytics_insert AFTER INSERT ON task_stages REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_sync_statement();
--> statement-breakpoint
CREATE TRIGGER task_stages_analytics_delete AFTER DELETE ON task_stages REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_sync_statement();
--> statement-breakpoint
CREATE TRIGGER task_stages_analytics_update AFTER UPDATE ON task_stages FOR EACH ROW
  WHEN ((OLD.task_id, OLD.project_id, OLD.stage_id) IS DISTINCT FROM (NEW.task_id, NEW.project_id, NEW.stage_id))
  EXECUTE FUNCTION analytics_sync_row();
--> statement-breakpoint
CREATE TRIGGER task_assignees_analytics_insert AFTER INSERT ON task_assignees REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_sync_statement();
--> statement-breakpoint
CREATE TRIGGER task_assignees_analytics_delete AFTER DELETE ON task_assignees REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_sync_statement();
--> statement-breakpoint
CREATE TRIGGER task_assignees_analytics_update AFTER UPDATE ON task_assignees FOR EACH ROW
  WHEN ((OLD.task_id, OLD.user_id) IS DISTINCT FROM (NEW.task_id, NEW.user_id)) EXECUTE FUNCTION analytics_sync_row();
--> statement-breakpoint
CREATE TRIGGER task_status_changes_analytics_insert AFTER INSERT ON task_status_changes REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_sync_statement();
--> statement-breakpoint
CREATE TRIGGER task_status_changes_analytics_delete AFTER DELETE ON task_status_changes REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_sync_statement();
--> statement-breakpoint
CREATE TRIGGER task_status_changes_analytics_update AFTER UPDATE ON task_status_changes FOR EACH ROW
  WHEN ((OLD.task_id, OLD.status, OLD.at) IS DISTINCT FROM (NEW.task_id, NEW.status, NEW.at)) EXECUTE FUNCTION analytics_sync_row();
--> statement-breakpoint
CREATE TRIGGER task_stage_stays_analytics_insert AFTER INSERT ON task_stage_stays REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_sync_statement();
--> statement-breakpoint
CREATE TRIGGER task_stage_stays_analytics_delete AFTER DELETE ON task_stage_stays REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_sync_statement();
--> statement-breakpoint
CREATE TRIGGER task_stage_stays_analytics_update AFTER UPDATE ON task_stage_stays FOR EACH ROW
  WHEN ((OLD.task_id, OLD.project_id, OLD.stage_id, OLD.entered_at, OLD.left_at) IS DISTINCT FROM (NEW.task_id, NEW.project_id, NEW.stage_id, NEW.entered_at, NEW.left_at))
  EXECUTE FUNCTION analytics_sync_row();
--> statement-breakpoint
CREATE TRIGGER time_records_analytics_insert AFTER INSERT ON time_records REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_sync_statement();
--> statement-breakpoint
CREATE TRIGGER time_records_analytics_delete AFTER DELETE ON time_records REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_sync_statement();
--> statement-breakpoint
CREATE TRIGGER time_records_analytics_update AFTER UPDATE ON time_records FOR EACH ROW
  WHEN ((OLD.task_id, OLD.user_id, OLD.date, OLD.hours) IS DISTINCT FROM (NEW.task_id, NEW.user_id, NEW.date, NEW.hours))
  EXECUTE FUNCTION analytics_sync_row();
--> statement-breakpoint
-- The rollups of the rows already there.
SELECT analytics_sync(array(SELECT id FROM tasks));
