CREATE TABLE "idempotency_keys" (
	"credential_hash" text NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"status" smallint,
	"response" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_keys_credential_hash_key_pk" PRIMARY KEY("credential_hash","key"),
	CONSTRAINT "idempotency_keys_key_check" CHECK (char_length("idempotency_keys"."key") between 1 and 255),
	CONSTRAINT "idempotency_keys_status_check" CHECK ("idempotency_keys"."status" is null or "idempotency_keys"."status" between 200 and 499)
);
--> statement-breakpoint
-- UNLOGGED (by hand; drizzle-kit cannot say it): counters change on almost every request, and a crash
-- that empties them only restarts the rate-limit windows.
CREATE UNLOGGED TABLE "rate_limits" (
	"key" text PRIMARY KEY NOT NULL,
	"count" integer NOT NULL,
	"reset_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "idempotency_keys_created_idx" ON "idempotency_keys" USING btree ("created_at");