CREATE TABLE "task_stage_stays" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "task_stage_stays_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"task_id" bigint NOT NULL,
	"project_id" bigint NOT NULL,
	"stage_id" bigint NOT NULL,
	"entered_at" timestamp with time zone NOT NULL,
	"left_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "task_status_changes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "task_status_changes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"task_id" bigint NOT NULL,
	"status" smallint NOT NULL,
	"at" timestamp with time zone NOT NULL,
	CONSTRAINT "task_status_changes_status_check" CHECK ("task_status_changes"."status" between 0 and 3)
);
--> statement-breakpoint
ALTER TABLE "task_stage_stays" ADD CONSTRAINT "task_stage_stays_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_stage_stays" ADD CONSTRAINT "task_stage_stays_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_stage_stays" ADD CONSTRAINT "task_stage_stays_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_stage_stays" ADD CONSTRAINT "task_stage_stays_stage_id_stages_id_fk" FOREIGN KEY ("stage_id") REFERENCES "public"."stages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_status_changes" ADD CONSTRAINT "task_status_changes_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_status_changes" ADD CONSTRAINT "task_status_changes_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "task_stage_stays_task_idx" ON "task_stage_stays" USING btree ("task_id","project_id","entered_at");--> statement-breakpoint
CREATE INDEX "task_stage_stays_project_idx" ON "task_stage_stays" USING btree ("project_id","entered_at");--> statement-breakpoint
CREATE INDEX "task_status_changes_task_idx" ON "task_status_changes" USING btree ("task_id","at");--> statement-breakpoint
CREATE INDEX "task_status_changes_org_idx" ON "task_status_changes" USING btree ("organization_id","status","at");--> statement-breakpoint
-- Triggers, not services, record the facts: every path that places, moves or re-statuses a task
-- (present and future) is covered. Order-only updates (column renumbering) do not fire them.
CREATE FUNCTION task_stage_stay_open() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE task_stage_stays SET left_at = now() WHERE task_id = OLD.task_id AND project_id = OLD.project_id AND left_at IS NULL;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO task_stage_stays (organization_id, task_id, project_id, stage_id, entered_at) VALUES (NEW.organization_id, NEW.task_id, NEW.project_id, NEW.stage_id, now());
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER task_stages_stay_insert AFTER INSERT ON task_stages FOR EACH ROW EXECUTE FUNCTION task_stage_stay_open();
--> statement-breakpoint
CREATE TRIGGER task_stages_stay_update AFTER UPDATE ON task_stages FOR EACH ROW
  WHEN (OLD.stage_id IS DISTINCT FROM NEW.stage_id OR OLD.project_id IS DISTINCT FROM NEW.project_id) EXECUTE FUNCTION task_stage_stay_open();
--> statement-breakpoint
CREATE TRIGGER task_stages_stay_delete AFTER DELETE ON task_stages FOR EACH ROW EXECUTE FUNCTION task_stage_stay_open();
--> statement-breakpoint
CREATE FUNCTION task_status_change_record() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO task_status_changes (organization_id, task_id, status, at)
  VALUES (NEW.organization_id, NEW.id, NEW.status, CASE WHEN TG_OP = 'INSERT' THEN NEW.created_at ELSE now() END);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER tasks_status_insert AFTER INSERT ON tasks FOR EACH ROW EXECUTE FUNCTION task_status_change_record();
--> statement-breakpoint
CREATE TRIGGER tasks_status_update AFTER UPDATE OF status ON tasks FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION task_status_change_record();
--> statement-breakpoint
-- What existing rows tell: the current column since the last move, creation in work, the current status since it last changed.
INSERT INTO task_stage_stays (organization_id, task_id, project_id, stage_id, entered_at)
SELECT s.organization_id, s.task_id, s.project_id, s.stage_id, coalesce(t.date_move, t.created_at) FROM task_stages s JOIN tasks t ON t.id = s.task_id;
--> statement-breakpoint
INSERT INTO task_status_changes (organization_id, task_id, status, at) SELECT organization_id, id, 0, created_at FROM tasks;
--> statement-breakpoint
INSERT INTO task_status_changes (organization_id, task_id, status, at)
SELECT organization_id, id, status, coalesce(date_status_changed, updated_at) FROM tasks WHERE status <> 0;
