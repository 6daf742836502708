-- The facts of a task's columns and statuses (task_stage_stays, task_status_changes) are written by
-- the triggers of tasks and task_stages, whose own queue triggers already queued that task in the
-- same statement. Their queue triggers on insert and update now fire only for a write made outside
-- a trigger (a test's backdating, a load), so a create queues three rows instead of five and a move
-- one instead of three: each was a PL/pgSQL call and a queue row the drain deletes again.
-- Deletes stay unconditional: a stage's or project's deletion cascades to the stays of tasks that
-- have left it, and a cascade runs inside a trigger.
DROP TRIGGER task_status_changes_analytics_insert ON task_status_changes;
--> statement-breakpoint
CREATE TRIGGER task_status_changes_analytics_insert AFTER INSERT ON task_status_changes REFERENCING NEW TABLE AS changed FOR EACH STATEMENT
  WHEN (pg_trigger_depth() = 0) EXECUTE FUNCTION analytics_queue_statement();
--> statement-breakpoint
DROP TRIGGER task_status_changes_analytics_update ON task_status_changes;
--> statement-breakpoint
CREATE TRIGGER task_status_changes_analytics_update AFTER UPDATE ON task_status_changes FOR EACH ROW
  WHEN (pg_trigger_depth() = 0 AND (OLD.task_id, OLD.status, OLD.at) IS DISTINCT FROM (NEW.task_id, NEW.status, NEW.at))
  EXECUTE FUNCTION analytics_queue_row();
--> statement-breakpoint
DROP TRIGGER task_stage_stays_analytics_insert ON task_stage_stays;
--> statement-breakpoint
CREATE TRIGGER task_stage_stays_analytics_insert AFTER INSERT ON task_stage_stays REFERENCING NEW TABLE AS changed FOR EACH STATEMENT
  WHEN (pg_trigger_depth() = 0) EXECUTE FUNCTION analytics_queue_statement();
--> statement-breakpoint
DROP TRIGGER task_stage_stays_analytics_update ON task_stage_stays;
--> statement-breakpoint
CREATE TRIGGER task_stage_stays_analytics_update AFTER UPDATE ON task_stage_stays FOR EACH ROW
  WHEN (pg_trigger_depth() = 0 AND (OLD.task_id, OLD.project_id, OLD.stage_id, OLD.entered_at, OLD.left_at)
    IS DISTINCT FROM (NEW.task_id, NEW.project_id, NEW.stage_id, NEW.entered_at, NEW.left_at))
  EXECUTE FUNCTION analytics_queue_row();
