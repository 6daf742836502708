CREATE TABLE "oauth_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"encrypted" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_records" (
	"model" text NOT NULL,
	"id" text NOT NULL,
	"payload" jsonb NOT NULL,
	"grant_id" text,
	"uid" text,
	"user_id" bigint,
	"organization_id" bigint,
	"expires_at" timestamp with time zone,
	"consumed_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oauth_records_pkey" PRIMARY KEY("model","id"),
	CONSTRAINT "oauth_records_user_org_check" CHECK (("oauth_records"."user_id" is null) = ("oauth_records"."organization_id" is null))
);
--> statement-breakpoint
ALTER TABLE "oauth_records" ADD CONSTRAINT "oauth_records_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_records" ADD CONSTRAINT "oauth_records_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "oauth_records_grant_idx" ON "oauth_records" USING btree ("grant_id");--> statement-breakpoint
CREATE INDEX "oauth_records_uid_idx" ON "oauth_records" USING btree ("uid");--> statement-breakpoint
CREATE INDEX "oauth_records_user_idx" ON "oauth_records" USING btree ("user_id","model");--> statement-breakpoint
CREATE INDEX "oauth_records_expires_idx" ON "oauth_records" USING btree ("expires_at");