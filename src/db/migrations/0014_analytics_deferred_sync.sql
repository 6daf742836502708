-- The rollups are synced once per transaction, at COMMIT, instead of after every statement.
-- 0005's row triggers write one stay or status change per task row, and each of those statements
-- synced its task again: a 2,000-task insert ran the sync 4,000 times, and one task creation three or
-- four times. The triggers now only note the task ids in a transaction-local setting (reverted with a
-- rolled-back savepoint, like the rows it names); deferred constraint triggers run the sync over all
-- of them when the transaction commits, which also keeps the rollup rows' locks to COMMIT itself.
CREATE FUNCTION analytics_mark(ids text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF ids IS NULL OR ids = '' THEN RETURN; END IF;
  PERFORM set_config('workboard.analytics_dirty', coalesce(current_setting('workboard.analytics_dirty', true), '') || ',' || ids, true);
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION analytics_sync_statement() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('workboard.analytics_sync', true) = 'off' THEN RETURN NULL; END IF;
  IF TG_TABLE_NAME = 'tasks' THEN
    PERFORM analytics_mark((SELECT string_agg(DISTINCT id::text, ',') FROM changed));
  ELSE
    PERFORM analytics_mark((SELECT string_agg(DISTINCT task_id::text, ',') FROM changed));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION analytics_sync_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('workboard.analytics_sync', true) = 'off' THEN RETURN NULL; END IF;
  IF TG_TABLE_NAME = 'tasks' THEN
    PERFORM analytics_mark(NEW.id::text);
  ELSE
    PERFORM analytics_mark(OLD.task_id::text || ',' || NEW.task_id::text);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- The first deferred trigger to fire syncs every task noted so far and clears the note; the others
-- find it empty. A deferred trigger's own writes cannot note more (the rollup tables have none).
CREATE FUNCTION analytics_flush() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  noted text := current_setting('workboard.analytics_dirty', true);
BEGIN
  IF noted IS NULL OR noted = '' THEN RETURN NULL; END IF;
  PERFORM set_config('workboard.analytics_dirty', '', true);
  PERFORM analytics_sync(array(SELECT DISTINCT x::bigint FROM unnest(string_to_array(noted, ',')) x WHERE x <> ''));
  RETURN NULL;
END $$;
--> statement-breakpoint
-- On the same changes as the marking triggers (so renumbering positions queues nothing).
CREATE CONSTRAINT TRIGGER tasks_analytics_flush AFTER INSERT OR DELETE ON tasks DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_flush();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER tasks_analytics_flush_update AFTER UPDATE ON tasks DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN ((OLD.status, OLD.archived_at, OLD.plan_time, OLD.created_at, OLD.date_end, OLD.date_end_without_time)
    IS DISTINCT FROM (NEW.status, NEW.archived_at, NEW.plan_time, NEW.created_at, NEW.date_end, NEW.date_end_without_time))
  EXECUTE FUNCTION analytics_flush();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER task_stages_analytics_flush AFTER INSERT OR DELETE ON task_stages DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_flush();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER task_stages_analytics_flush_update AFTER UPDATE ON task_stages DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN ((OLD.task_id, OLD.project_id, OLD.stage_id) IS DISTINCT FROM (NEW.task_id, NEW.project_id, NEW.stage_id))
  EXECUTE FUNCTION analytics_flush();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER task_assignees_analytics_flush AFTER INSERT OR DELETE ON task_assignees DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_flush();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER task_assignees_analytics_flush_update AFTER UPDATE ON task_assignees DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN ((OLD.task_id, OLD.user_id) IS DISTINCT FROM (NEW.task_id, NEW.user_id))
  EXECUTE FUNCTION analytics_flush();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER task_status_changes_analytics_flush AFTER INSERT OR DELETE ON task_status_changes DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_flush();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER task_status_changes_analytics_flush_update AFTER UPDATE ON task_status_changes DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN ((OLD.task_id, OLD.status, OLD.at) IS DISTINCT FROM (NEW.task_id, NEW.status, NEW.at))
  EXECUTE FUNCTION analytics_flush();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER task_stage_stays_analytics_flush AFTER INSERT OR DELETE ON task_stage_stays DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_flush();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER task_stage_stays_analytics_flush_update AFTER UPDATE ON task_stage_stays DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN ((OLD.task_id, OLD.project_id, OLD.stage_id, OLD.entered_at, OLD.left_at) IS DISTINCT FROM (NEW.task_id, NEW.project_id, NEW.stage_id, NEW.entered_at, NEW.left_at))
  EXECUTE FUNCTION analytics_flush();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER time_records_analytics_flush AFTER INSERT OR DELETE ON time_records DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_flush();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER time_records_analytics_flush_update AFTER UPDATE ON time_records DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN ((OLD.task_id, OLD.user_id, OLD.date, OLD.hours) IS DISTINCT FROM (NEW.task_id, NEW.user_id, NEW.date, NEW.hours))
  EXECUTE FUNCTION analytics_flush();
