-- tasks_project_idx (project_id) repeats the first column of tasks_project_status_idx (project_id,
-- status), which serves every lookup by project (and the cascade from projects) as well; every task
-- insert and every update moving a task's project kept both up to date.
DROP INDEX IF EXISTS "tasks_project_idx";
