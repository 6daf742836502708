CREATE TABLE "analytics_dirty" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "analytics_dirty_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"task_id" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "analytics_dirty_org_idx" ON "analytics_dirty" USING btree ("organization_id","id");--> statement-breakpoint
-- The rollups leave the writing transactions. 0014 synced them at COMMIT, so every task create or
-- move of a project updated the same rollup rows (the project's counts, its day, its columns' flow)
-- and held their row locks until its commit was flushed: a project's writers ran one at a time.
-- The triggers now only append the task ids to `analytics_dirty` (a row of its own per write, no
-- row two writers share); `analytics_drain` syncs them once the writes have committed, and reports
-- drain their organization's queue before they read. Bulk loads still set
-- workboard.analytics_sync = off and sync once at the end.
ALTER FUNCTION analytics_sync_statement() RENAME TO analytics_queue_statement;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION analytics_queue_statement() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('workboard.analytics_sync', true) = 'off' THEN RETURN NULL; END IF;
  IF TG_TABLE_NAME = 'tasks' THEN
    INSERT INTO analytics_dirty (organization_id, task_id) SELECT DISTINCT c.organization_id, c.id FROM changed c;
  ELSE
    INSERT INTO analytics_dirty (organization_id, task_id) SELECT DISTINCT c.organization_id, c.task_id FROM changed c;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
ALTER FUNCTION analytics_sync_row() RENAME TO analytics_queue_row;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION analytics_queue_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('workboard.analytics_sync', true) = 'off' THEN RETURN NULL; END IF;
  IF TG_TABLE_NAME = 'tasks' THEN
    INSERT INTO analytics_dirty (organization_id, task_id) VALUES (NEW.organization_id, NEW.id);
  ELSE
    INSERT INTO analytics_dirty (organization_id, task_id) VALUES (NEW.organization_id, NEW.task_id);
    IF OLD.task_id <> NEW.task_id THEN
      INSERT INTO analytics_dirty (organization_id, task_id) VALUES (OLD.organization_id, OLD.task_id);
    END IF;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER tasks_analytics_flush ON tasks;
--> statement-breakpoint
DROP TRIGGER tasks_analytics_flush_update ON tasks;
--> statement-breakpoint
DROP TRIGGER task_stages_analytics_flush ON task_stages;
--> statement-breakpoint
DROP TRIGGER task_stages_analytics_flush_update ON task_stages;
--> statement-breakpoint
DROP TRIGGER task_assignees_analytics_flush ON task_assignees;
--> statement-breakpoint
DROP TRIGGER task_assignees_analytics_flush_update ON task_assignees;
--> statement-breakpoint
DROP TRIGGER task_status_changes_analytics_flush ON task_status_changes;
--> statement-breakpoint
DROP TRIGGER task_status_changes_analytics_flush_update ON task_status_changes;
--> statement-breakpoint
DROP TRIGGER task_stage_stays_analytics_flush ON task_stage_stays;
--> statement-breakpoint
DROP TRIGGER task_stage_stays_analytics_flush_update ON task_stage_stays;
--> statement-breakpoint
DROP TRIGGER time_records_analytics_flush ON time_records;
--> statement-breakpoint
DROP TRIGGER time_records_analytics_flush_update ON time_records;
--> statement-breakpoint
DROP FUNCTION analytics_flush();
--> statement-breakpoint
DROP FUNCTION analytics_mark(text);
--> statement-breakpoint
-- Applies up to `batch` queued rows of one organization (of the oldest queued row's when `org` is
-- null) and answers how many it took (0: nothing queued). The drains of an organization take turns
-- under an advisory lock held to COMMIT: two syncs of one task at once would both subtract the same
-- old ledger rows and both add their own (counted twice). The sync's statements begin after the
-- lock is granted, so under READ COMMITTED they see what every earlier drain committed. A drain
-- commits without waiting for its WAL flush: one lost in a crash brings its queue rows back with it.
CREATE FUNCTION analytics_drain(org bigint, batch integer) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  ids bigint[];
  taken integer;
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'analytics_drain runs under READ COMMITTED: a snapshot older than its lock would miss the previous drain';
  END IF;
  IF org IS NULL THEN
    SELECT d.organization_id INTO org FROM analytics_dirty d ORDER BY d.id LIMIT 1;
  ELSIF NOT EXISTS (SELECT 1 FROM analytics_dirty d WHERE d.organization_id = org) THEN
    org := NULL;
  END IF;
  IF org IS NULL THEN RETURN 0; END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended('analytics_drain', org));
  PERFORM set_config('synchronous_commit', 'off', true);
  WITH gone AS (
    DELETE FROM analytics_dirty d
    WHERE d.id IN (SELECT q.id FROM analytics_dirty q WHERE q.organization_id = org ORDER BY q.id LIMIT batch)
    RETURNING d.task_id)
  SELECT array_agg(DISTINCT g.task_id), count(*) INTO ids, taken FROM gone g;
  IF taken > 0 THEN PERFORM analytics_sync(ids); END IF;
  RETURN taken;
END $$;
