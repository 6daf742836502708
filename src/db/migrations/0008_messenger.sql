CREATE TABLE "messenger_integrations" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "messenger_integrations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" bigint NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"code" text,
	"code_expires_at" timestamp with time zone,
	"chat_id" bigint,
	"messenger_user_id" bigint,
	"username" text,
	"notify" boolean DEFAULT true NOT NULL,
	"connected_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "messenger_integrations_status_check" CHECK ("messenger_integrations"."status" in ('pending','active','inactive'))
);
--> statement-breakpoint
CREATE TABLE "messenger_outbox" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "messenger_outbox_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint,
	"chat_id" bigint NOT NULL,
	"text" text NOT NULL,
	"notification_id" bigint,
	"task_id" bigint,
	"user_id" bigint,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_message_id" bigint,
	"sent_at" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "messenger_outbox_status_check" CHECK ("messenger_outbox"."status" in ('pending','sent','failed','dropped'))
);
--> statement-breakpoint
CREATE TABLE "messenger_poller" (
	"bot" text PRIMARY KEY NOT NULL,
	"update_offset" bigint DEFAULT 0 NOT NULL,
	"owner" text,
	"lease_until" timestamp with time zone,
	"bot_username" text
);
--> statement-breakpoint
CREATE TABLE "project_messenger_integrations" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "project_messenger_integrations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"project_id" bigint NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"code" text,
	"code_expires_at" timestamp with time zone,
	"chat_id" bigint,
	"chat_title" text,
	"events" text[] DEFAULT '{}'::text[] NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"creator_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "project_messenger_integrations_status_check" CHECK ("project_messenger_integrations"."status" in ('pending','active','inactive'))
);
--> statement-breakpoint
ALTER TABLE "messenger_integrations" ADD CONSTRAINT "messenger_integrations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messenger_outbox" ADD CONSTRAINT "messenger_outbox_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messenger_outbox" ADD CONSTRAINT "messenger_outbox_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_messenger_integrations" ADD CONSTRAINT "project_messenger_integrations_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_messenger_integrations" ADD CONSTRAINT "project_messenger_integrations_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_messenger_integrations" ADD CONSTRAINT "project_messenger_integrations_creator_id_users_id_fk" FOREIGN KEY ("creator_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "messenger_integrations_user_key" ON "messenger_integrations" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "messenger_integrations_code_key" ON "messenger_integrations" USING btree ("code");--> statement-breakpoint
CREATE INDEX "messenger_integrations_chat_idx" ON "messenger_integrations" USING btree ("chat_id");--> statement-breakpoint
CREATE UNIQUE INDEX "messenger_outbox_notification_key" ON "messenger_outbox" USING btree ("notification_id");--> statement-breakpoint
CREATE INDEX "messenger_outbox_pending_idx" ON "messenger_outbox" USING btree ("chat_id","id") WHERE "messenger_outbox"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "messenger_outbox_sent_idx" ON "messenger_outbox" USING btree ("chat_id","sent_message_id") WHERE "messenger_outbox"."sent_message_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "project_messenger_integrations_project_key" ON "project_messenger_integrations" USING btree ("project_id");--> statement-breakpoint
CREATE UNIQUE INDEX "project_messenger_integrations_code_key" ON "project_messenger_integrations" USING btree ("code");--> statement-breakpoint
CREATE INDEX "project_messenger_integrations_org_idx" ON "project_messenger_integrations" USING btree ("organization_id") WHERE "project_messenger_integrations"."status" = 'active' and "project_messenger_integrations"."enabled";