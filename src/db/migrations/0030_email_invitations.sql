CREATE TABLE "space_invitations" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "space_invitations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" bigint NOT NULL,
	"space_id" bigint NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"token_hash" text NOT NULL,
	"invited_by_id" bigint,
	"expires_at" timestamp with time zone NOT NULL,
	"sent_at" timestamp with time zone DEFAULT now() NOT NULL,
	"accepted_at" timestamp with time zone,
	"accepted_by_id" bigint,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "space_invitations_role_check" CHECK ("space_invitations"."role" in ('editor','member','reader')),
	CONSTRAINT "space_invitations_email_lower_check" CHECK ("space_invitations"."email" = lower("space_invitations"."email")),
	CONSTRAINT "space_invitations_answered_once_check" CHECK ("space_invitations"."accepted_at" is null or "space_invitations"."revoked_at" is null)
);
--> statement-breakpoint
ALTER TABLE "notification_email_settings" ADD COLUMN "mentions_immediately" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "notification_email_settings" ADD COLUMN "mentions_sent_through" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "space_invitations" ADD CONSTRAINT "space_invitations_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "space_invitations" ADD CONSTRAINT "space_invitations_space_id_spaces_id_fk" FOREIGN KEY ("space_id") REFERENCES "public"."spaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "space_invitations" ADD CONSTRAINT "space_invitations_invited_by_id_users_id_fk" FOREIGN KEY ("invited_by_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "space_invitations" ADD CONSTRAINT "space_invitations_accepted_by_id_users_id_fk" FOREIGN KEY ("accepted_by_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "space_invitations_token_hash_key" ON "space_invitations" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "space_invitations_open_key" ON "space_invitations" USING btree ("space_id","email") WHERE "space_invitations"."accepted_at" is null and "space_invitations"."revoked_at" is null;--> statement-breakpoint
CREATE INDEX "space_invitations_org_idx" ON "space_invitations" USING btree ("organization_id");