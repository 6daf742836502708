-- Task search reads stored vectors (GET /tasks/search). With expression indexes, every matching row
-- had its text parsed again twice per search, to recheck the match and to rank it: a word in most of
-- a 100,000-task organization took 2.3 s. Stored, a vector is computed once per change of the text
-- (PostgreSQL recomputes a generated column only when a column it depends on is updated), and
-- ranking reads it. Same expressions as before, so the same words match and rank the same.
ALTER TABLE "tasks" ADD COLUMN "search_vector" tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, left(coalesce("name", '') || ' ' || coalesce("description", ''), 100000))) STORED;
--> statement-breakpoint
DROP INDEX "tasks_search_idx";
--> statement-breakpoint
CREATE INDEX "tasks_search_idx" ON "tasks" USING gin ("search_vector");
--> statement-breakpoint
ALTER TABLE "task_messages" ADD COLUMN "search_vector" tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, left("text", 100000))) STORED;
--> statement-breakpoint
DROP INDEX "task_messages_search_idx";
--> statement-breakpoint
CREATE INDEX "task_messages_search_idx" ON "task_messages" USING gin ("search_vector");
--> statement-breakpoint
-- The few placements of tasks linked into a project other than their home one: the readable-task
-- condition (tasks/actions/actions.policy.ts) hashes them instead of probing every task's placements.
CREATE INDEX "task_stages_linked_idx" ON "task_stages" ("organization_id", "project_id") WHERE NOT "pinned";
