-- The drain's DELETE took its batch through `id IN (subquery ... LIMIT batch)`. A queue table's
-- statistics are always stale (it is empty whenever it was last analyzed), so the planner expected
-- one row and chose a nested-loop semi join that ran the LIMIT subquery again for every queue row
-- deleted: 440 queued rows cost 97,000 heap fetches and 80 ms, most of the database's time in a
-- 32-connection write benchmark. The batch's ids are now read once into an array and deleted
-- through the primary key, linear whatever the statistics say. Same rows, same locks, same answer.
CREATE OR REPLACE FUNCTION analytics_drain(org bigint, batch integer) RETURNS integer LANGUAGE plpgsql AS $$
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
    WHERE d.id = ANY (ARRAY(SELECT q.id FROM analytics_dirty q WHERE q.organization_id = org ORDER BY q.id LIMIT batch))
    RETURNING d.task_id)
  SELECT array_agg(DISTINCT g.task_id), count(*) INTO ids, taken FROM gone g;
  IF taken > 0 THEN PERFORM analytics_sync(ids); END IF;
  RETURN taken;
END $$;
