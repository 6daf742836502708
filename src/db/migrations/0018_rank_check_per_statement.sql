-- Column ranks are unique per column (0001), checked at the end of each statement instead of at
-- COMMIT. Checked at COMMIT, two placements that drew the same rank deadlocked: the one committing
-- waited, inside COMMIT, for the other's uncommitted row, which waited for the organization's event
-- counter row the first one held until its COMMIT ended; PostgreSQL broke the cycle after
-- deadlock_timeout (1 s) and the write was retried: the 1.1 s p99 of the 32-connection write
-- benchmarks. Checked per statement, the second placement waits for the first before it takes the
-- counter, then fails the check and is retried at once (db/tx.ts). Every writer renumbers a column in
-- one statement, which a per-statement check allows. Still deferrable, for a transaction that must
-- defer it explicitly.
ALTER TABLE "task_stages" DROP CONSTRAINT "task_stages_stage_order_key";
--> statement-breakpoint
ALTER TABLE "task_stages" ADD CONSTRAINT "task_stages_stage_order_key" UNIQUE ("stage_id", "order") DEFERRABLE INITIALLY IMMEDIATE;
