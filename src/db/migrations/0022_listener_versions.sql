-- A write reads its organization's enabled webhooks and automation rules (the listeners), which most
-- organizations do not have: one round trip per write for nothing. An instance now remembers an
-- organization seen without any (platform/quiet-organizations.ts) together with this version, which
-- every webhook or rule created, deleted, enabled or disabled changes; a write skipping the reads
-- checks in its record statement that the version is unchanged (listeners_unchanged), so no enabled
-- listener is missed, whichever instance enabled it. Versions come from a sequence, never reused:
-- a version seen in a transaction that rolled back is never the committed one.
ALTER TABLE "event_counters" ADD COLUMN "listeners_version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE SEQUENCE "listeners_version_seq";--> statement-breakpoint
CREATE INDEX "automation_rules_org_idx" ON "automation_rules" USING btree ("organization_id") WHERE "automation_rules"."enabled";--> statement-breakpoint
CREATE FUNCTION listeners_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  org bigint := CASE WHEN TG_OP = 'DELETE' THEN OLD.organization_id ELSE NEW.organization_id END;
  next bigint;
  prev bigint;
BEGIN
  -- A restore loads the backup's versions as they were (portability/instance.ts).
  IF current_setting('workboard.listeners_versions', true) = 'off' THEN RETURN NULL; END IF;
  -- Nothing for an organization being deleted (its rules and webhooks go in its cascade).
  IF NOT EXISTS (SELECT 1 FROM organizations o WHERE o.id = org) THEN RETURN NULL; END IF;
  next := nextval('listeners_version_seq');
  SELECT c.listeners_version INTO prev FROM event_counters c WHERE c.organization_id = org FOR UPDATE;
  -- Past every version the organization had (a restore loads older instances' versions), and the
  -- sequence moved past it too, so that no value is ever handed out twice.
  IF prev IS NOT NULL AND prev >= next THEN
    next := prev + 1;
    PERFORM setval('listeners_version_seq', next);
  END IF;
  INSERT INTO event_counters AS c (organization_id, last_id, listeners_version) VALUES (org, 0, next)
  ON CONFLICT (organization_id) DO UPDATE SET listeners_version = excluded.listeners_version;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER webhooks_listeners_changed AFTER INSERT OR DELETE ON webhooks FOR EACH ROW EXECUTE FUNCTION listeners_changed();--> statement-breakpoint
CREATE TRIGGER webhooks_listeners_enabled AFTER UPDATE OF enabled ON webhooks FOR EACH ROW WHEN (NEW.enabled IS DISTINCT FROM OLD.enabled) EXECUTE FUNCTION listeners_changed();--> statement-breakpoint
CREATE TRIGGER automation_rules_listeners_changed AFTER INSERT OR DELETE ON automation_rules FOR EACH ROW EXECUTE FUNCTION listeners_changed();--> statement-breakpoint
CREATE TRIGGER automation_rules_listeners_enabled AFTER UPDATE OF enabled ON automation_rules FOR EACH ROW WHEN (NEW.enabled IS DISTINCT FROM OLD.enabled) EXECUTE FUNCTION listeners_changed();--> statement-breakpoint
-- The guard of a record statement whose writer skipped the listener reads: a serialization failure
-- (the service runs the transaction again) when the listeners changed since the writer last looked.
CREATE FUNCTION listeners_unchanged(current_version bigint, expected_version bigint) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  IF current_version IS DISTINCT FROM expected_version THEN
    RAISE EXCEPTION 'an organization''s webhooks or automation rules changed during this write' USING ERRCODE = '40001';
  END IF;
  RETURN true;
END $$;
