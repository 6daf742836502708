import type { portabilityJobs } from '../../db/schema/portability.js';
import { iso } from '../../platform/http.js';
import type { PortabilityReport } from './report.js';
import type { PortabilityJobDto } from './portability.schemas.js';

export type PortabilityJobRow = typeof portabilityJobs.$inferSelect;

/** The job without its archive key (the download route streams it). */
export const presentPortabilityJob = (row: PortabilityJobRow): PortabilityJobDto => ({
  id: Number(row.id),
  kind: row.kind,
  status: row.status,
  creatorId: row.creatorId === null ? null : Number(row.creatorId),
  total: row.total,
  processed: row.processed,
  archiveSize: row.archiveSize === null ? null : Number(row.archiveSize),
  importedOrganizationId: row.resultOrganizationId === null ? null : Number(row.resultOrganizationId),
  report: (row.report as PortabilityReport | null) ?? null,
  error: row.error,
  createdAt: iso(row.createdAt)!,
  finishedAt: iso(row.finishedAt),
  expiresAt: iso(row.expiresAt),
});
