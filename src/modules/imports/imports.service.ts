import { and, eq } from 'drizzle-orm';
import { importJobs } from '../../db/schema/imports.js';
import type { Ctx } from '../../platform/context.js';
import { notFound } from '../../platform/errors.js';
import { emit } from '../../platform/events.js';
import { authorizeCsvImport, authorizeImportRead, authorizeTrelloImport } from './imports.policy.js';
import { presentImportJob, type ImportJobRow } from './imports.presenter.js';
import type { ImportJobDto, TrelloBoard } from './imports.schemas.js';
import { planCsvImport } from './csv.service.js';
import { mapTrelloBoard } from './trello.map.js';

function queued(ctx: Ctx, row: ImportJobRow, wake: () => void): ImportJobDto {
  const job = presentImportJob(row);
  emit(ctx, { type: 'import.progress', spaceId: job.spaceId, projectId: job.projectId, userId: ctx.actor.userId, payload: job });
  ctx.afterCommit(wake);
  return job;
}

/**
 * Queues the import of a Trello board into a new project of the space. The board is mapped now, so
 * that a body that is not a usable board is refused before anything is written; the job keeps the
 * plan, not the export.
 */
export async function startTrelloImport(ctx: Ctx, spaceId: number, board: TrelloBoard, wake: () => void): Promise<ImportJobDto> {
  await authorizeTrelloImport(ctx.db, ctx.actor, spaceId);
  const plan = mapTrelloBoard(board);
  const [row] = await ctx.db
    .insert(importJobs)
    .values({ organizationId: ctx.actor.organizationId, kind: 'trello', spaceId, creatorId: ctx.actor.userId, total: plan.tasks.length, payload: plan })
    .returning();
  return queued(ctx, row!, wake);
}

/** Queues a CSV of tasks into the project; a CSV with any bad row is refused whole (400 listing the rows). */
export async function startCsvImport(ctx: Ctx, projectId: number, csv: string, wake: () => void): Promise<ImportJobDto> {
  const project = await authorizeCsvImport(ctx.db, ctx.actor, projectId);
  const plan = await planCsvImport(ctx, projectId, project.name, csv);
  const [row] = await ctx.db
    .insert(importJobs)
    .values({ organizationId: ctx.actor.organizationId, kind: 'csv', spaceId: project.spaceId, projectId, creatorId: ctx.actor.userId, total: plan.tasks.length, payload: plan })
    .returning();
  return queued(ctx, row!, wake);
}

export async function getImport(ctx: Ctx, importId: number): Promise<ImportJobDto> {
  const [row] = await ctx.db.select().from(importJobs).where(and(eq(importJobs.id, importId), eq(importJobs.organizationId, ctx.actor.organizationId)));
  if (!row) throw notFound('import');
  await authorizeImportRead(ctx.db, ctx.actor, { spaceId: row.spaceId === null ? null : Number(row.spaceId), creatorId: row.creatorId === null ? null : Number(row.creatorId) });
  return presentImportJob(row);
}
