CREATE TABLE "project_tabs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "project_tabs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"project_id" bigint NOT NULL,
	"type" text NOT NULL,
	"name" text NOT NULL,
	"url" text,
	"page_id" bigint,
	"source_project_id" bigint,
	"order" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "project_tabs_type_check" CHECK ("project_tabs"."type" in ('link', 'doc', 'board', 'table'))
);
--> statement-breakpoint
ALTER TABLE "project_tabs" ADD CONSTRAINT "project_tabs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_tabs" ADD CONSTRAINT "project_tabs_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_tabs" ADD CONSTRAINT "project_tabs_page_id_pages_id_fk" FOREIGN KEY ("page_id") REFERENCES "public"."pages"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_tabs" ADD CONSTRAINT "project_tabs_source_project_id_projects_id_fk" FOREIGN KEY ("source_project_id") REFERENCES "public"."projects"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "project_tabs_project_idx" ON "project_tabs" USING btree ("project_id","order");