import type { importJobs } from '../../db/schema/imports.js';
import { iso } from '../../platform/http.js';
import type { ImportReport } from './report.js';
import type { ImportJobDto } from './imports.schemas.js';

export type ImportJobRow = typeof importJobs.$inferSelect;

/** The job without its plan (payload), which is the importer's business. */
export const presentImportJob = (row: ImportJobRow): ImportJobDto => ({
  id: Number(row.id),
  kind: row.kind as ImportJobDto['kind'],
  status: row.status,
  spaceId: row.spaceId === null ? null : Number(row.spaceId),
  projectId: row.projectId === null ? null : Number(row.projectId),
  creatorId: row.creatorId === null ? null : Number(row.creatorId),
  total: row.total,
  processed: row.processed,
  report: (row.report as ImportReport | null) ?? null,
  error: row.error,
  createdAt: iso(row.createdAt)!,
  finishedAt: iso(row.finishedAt),
});
