-- Two indexes that repeat another, each maintained by every write to their table:
-- tasks_project_idx (project_id) is the prefix of tasks_project_status_idx (project_id, status),
-- which serves every lookup by project (and the cascade from projects) as well;
-- task_stages_stage_idx (stage_id, "order") has the very columns of the unique constraint
-- task_stages_stage_order_key's index (migration 0018), which the planner uses for the same scans.
DROP INDEX IF EXISTS "tasks_project_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "task_stages_stage_idx";
