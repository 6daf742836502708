import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, ts, updatedAt } from './columns.js';
import { organizations } from './organizations.js';
import { users } from './users.js';

export const PORTABILITY_KINDS = ['export', 'import'] as const;
export type PortabilityKind = (typeof PORTABILITY_KINDS)[number];
export const PORTABILITY_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'expired'] as const;
export type PortabilityStatus = (typeof PORTABILITY_STATUSES)[number];

/**
 * An organization export (the archive it wrote) or an import of such an archive (the archive
 * uploaded, then a new organization). `archive_key` names the blob in file storage; it is not a
 * `files` row, since it belongs to no resource of the organization and must not be exported
 * itself. An export's archive is removed when `expires_at` passes; an import's once it ends.
 */
export const portabilityJobs = pgTable(
  'portability_jobs',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: PORTABILITY_KINDS }).notNull(),
    status: text('status', { enum: PORTABILITY_STATUSES }).notNull().default('queued'),
    creatorId: ref('creator_id').references(() => users.id, { onDelete: 'set null' }),
    archiveKey: uuid('archive_key'),
    archiveSize: bigint('archive_size', { mode: 'number' }),
    // The organization an import created (null until it committed).
    resultOrganizationId: ref('result_organization_id').references(() => organizations.id, { onDelete: 'set null' }),
    total: integer('total').notNull().default(0),
    processed: integer('processed').notNull().default(0),
    report: jsonb('report'),
    error: text('error'),
    heartbeatAt: ts('heartbeat_at'),
    finishedAt: ts('finished_at'),
    expiresAt: ts('expires_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('portability_jobs_org_idx').on(t.organizationId, t.id),
    index('portability_jobs_status_idx').on(t.status),
    index('portability_jobs_archive_key_idx').on(t.archiveKey),
    check('portability_jobs_kind_check', sql`${t.kind} in ('export','import')`),
    check('portability_jobs_status_check', sql`${t.status} in ('queued','running','succeeded','failed','expired')`),
    check('portability_jobs_progress_check', sql`${t.total} >= 0 and ${t.processed} >= 0`),
  ],
);
