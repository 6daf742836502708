CREATE TABLE "cloud_drive_auth_states" (
	"nonce" text PRIMARY KEY NOT NULL,
	"user_id" bigint NOT NULL,
	"code_verifier_encrypted" text NOT NULL,
	"redirect_uri" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cloud_drive_integrations" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "cloud_drive_integrations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" bigint NOT NULL,
	"status" text DEFAULT 'connected' NOT NULL,
	"account_email" text,
	"scopes" text[] DEFAULT '{}'::text[] NOT NULL,
	"access_token_encrypted" text,
	"refresh_token_encrypted" text,
	"access_issued_at" timestamp with time zone,
	"access_expires_at" timestamp with time zone,
	"connected_at" timestamp with time zone DEFAULT now() NOT NULL,
	"disconnected_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cloud_drive_integrations_status_check" CHECK ("cloud_drive_integrations"."status" in ('connected','disconnected'))
);
--> statement-breakpoint
CREATE TABLE "message_drive_attachments" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "message_drive_attachments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"message_id" bigint NOT NULL,
	"drive_file_id" text NOT NULL,
	"name" text NOT NULL,
	"mime_type" text NOT NULL,
	"size" bigint DEFAULT 0 NOT NULL,
	"web_url" text NOT NULL,
	"attached_by_id" bigint,
	"position" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "message_drive_attachments_file_id_check" CHECK (char_length("message_drive_attachments"."drive_file_id") between 1 and 200)
);
--> statement-breakpoint
ALTER TABLE "cloud_drive_auth_states" ADD CONSTRAINT "cloud_drive_auth_states_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cloud_drive_integrations" ADD CONSTRAINT "cloud_drive_integrations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_drive_attachments" ADD CONSTRAINT "message_drive_attachments_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_drive_attachments" ADD CONSTRAINT "message_drive_attachments_message_id_task_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."task_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_drive_attachments" ADD CONSTRAINT "message_drive_attachments_attached_by_id_users_id_fk" FOREIGN KEY ("attached_by_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "cloud_drive_auth_states_expires_idx" ON "cloud_drive_auth_states" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "cloud_drive_integrations_user_key" ON "cloud_drive_integrations" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "message_drive_attachments_message_file_key" ON "message_drive_attachments" USING btree ("message_id","drive_file_id");