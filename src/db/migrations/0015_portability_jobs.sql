CREATE TABLE "portability_jobs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "portability_jobs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"kind" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"creator_id" bigint,
	"archive_key" uuid,
	"archive_size" bigint,
	"result_organization_id" bigint,
	"total" integer DEFAULT 0 NOT NULL,
	"processed" integer DEFAULT 0 NOT NULL,
	"report" jsonb,
	"error" text,
	"heartbeat_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "portability_jobs_kind_check" CHECK ("portability_jobs"."kind" in ('export','import')),
	CONSTRAINT "portability_jobs_status_check" CHECK ("portability_jobs"."status" in ('queued','running','succeeded','failed','expired')),
	CONSTRAINT "portability_jobs_progress_check" CHECK ("portability_jobs"."total" >= 0 and "portability_jobs"."processed" >= 0)
);
--> statement-breakpoint
ALTER TABLE "portability_jobs" ADD CONSTRAINT "portability_jobs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "portability_jobs" ADD CONSTRAINT "portability_jobs_creator_id_users_id_fk" FOREIGN KEY ("creator_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "portability_jobs" ADD CONSTRAINT "portability_jobs_result_organization_id_organizations_id_fk" FOREIGN KEY ("result_organization_id") REFERENCES "public"."organizations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "portability_jobs_org_idx" ON "portability_jobs" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "portability_jobs_status_idx" ON "portability_jobs" USING btree ("status");--> statement-breakpoint
CREATE INDEX "portability_jobs_archive_key_idx" ON "portability_jobs" USING btree ("archive_key");