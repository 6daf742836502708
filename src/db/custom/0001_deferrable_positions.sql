-- Dense, unique positions per column. Deferrable so one transaction may renumber a column through
-- transient duplicates; archived tasks keep a null position and are not counted.
ALTER TABLE "task_stages" ADD CONSTRAINT "task_stages_stage_order_key" UNIQUE ("stage_id", "order") DEFERRABLE INITIALLY DEFERRED;
