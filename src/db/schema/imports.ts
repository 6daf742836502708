import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, ts, updatedAt } from './columns.js';
import { organizations } from './organizations.js';
import { projects } from './projects.js';
import { spaces } from './spaces.js';
import { users } from './users.js';

export const IMPORT_KINDS = ['trello', 'csv'] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];
export const IMPORT_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

/**
 * A background import (Trello board, CSV of tasks; later kinds reuse the shape). `payload` holds
 * the validated plan while the job waits or runs and is cleared when it ends, so a finished job
 * keeps only its report. The kind check is kept open-ended on purpose: adding a kind is a new
 * value, not a new table.
 */
export const importJobs = pgTable(
  'import_jobs',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    status: text('status', { enum: IMPORT_STATUSES }).notNull().default('queued'),
    spaceId: ref('space_id').references(() => spaces.id, { onDelete: 'cascade' }),
    // The project filled (CSV) or created (Trello, once it exists); a purged project leaves the report.
    projectId: ref('project_id').references(() => projects.id, { onDelete: 'set null' }),
    creatorId: ref('creator_id').references(() => users.id, { onDelete: 'set null' }),
    total: integer('total').notNull().default(0),
    processed: integer('processed').notNull().default(0),
    payload: jsonb('payload'),
    report: jsonb('report'),
    error: text('error'),
    // A running job's worker touches this as it goes; one silent for long was lost with its process.
    heartbeatAt: ts('heartbeat_at'),
    finishedAt: ts('finished_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('import_jobs_org_idx').on(t.organizationId, t.id),
    index('import_jobs_status_idx').on(t.status),
    check('import_jobs_status_check', sql`${t.status} in ('queued','running','succeeded','failed')`),
    check('import_jobs_progress_check', sql`${t.total} >= 0 and ${t.processed} >= 0`),
  ],
);
