import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import type { Ctx } from '../../platform/context.js';
import { emit } from '../../platform/events.js';
import { notFound } from '../../platform/errors.js';
import type { FileStore } from '../../platform/files.js';
import { presentFile } from '../files/files.presenter.js';
import { deleteFiles, recordFile, type FileRow, type ReceivedFile } from '../files/files.service.js';
import { requireContentSize, requireFresh } from '../docs/versioning.js';
import { authorizeProjectDocs } from './project-docs.policy.js';
import { presentProjectDocumentation, type DocumentationRecord } from './project-docs.presenter.js';
import type { ProjectDocumentationDto } from './project-docs.schemas.js';

type Kind = 'image' | 'file';

/**
 * Project documentation is part of its project: a change is project.updated for the project's
 * readers, carrying the documentation as GET …/documentation answers it (loaded once).
 */
async function announce(ctx: Ctx, projectId: number, spaceId: number): Promise<ProjectDocumentationDto> {
  const doc = await loadDocumentation(ctx.db, ctx.actor, projectId);
  emit(ctx, { type: 'project.updated', spaceId, projectId, payload: { id: projectId, documentation: doc } });
  return doc;
}

async function loadDocumentation(db: Queryable, actor: Actor, projectId: number): Promise<ProjectDocumentationDto> {
  const [doc] = await queryRows<DocumentationRecord>(
    db,
    sql`select content, version, updated_by_id as "updatedById", updated_at as "updatedAt" from project_documentation
        where project_id = ${projectId} and organization_id = ${actor.organizationId}`,
  );
  const attached = await queryRows<FileRow & { kind: Kind }>(
    db,
    sql`select f.id, f.key, f.name, f.size, f.mime_type as "mimeType", d.kind from project_documentation_files d
        join files f on f.id = d.file_id
        where d.project_id = ${projectId} and d.organization_id = ${actor.organizationId}
        order by d.created_at, f.id`,
  );
  return presentProjectDocumentation(projectId, doc, attached);
}

export async function getProjectDocumentation(ctx: Ctx, projectId: number): Promise<ProjectDocumentationDto> {
  await authorizeProjectDocs(ctx.db, ctx.actor, projectId, 'read');
  return loadDocumentation(ctx.db, ctx.actor, projectId);
}

/**
 * Replaces the content; a stale If-Match is refused (409) and nothing is written. The row is made
 * on first write, then locked, so two writers holding the same version cannot both succeed.
 */
export async function writeProjectDocumentation(ctx: Ctx, projectId: number, input: { content: string; ifMatch?: string }): Promise<ProjectDocumentationDto> {
  const { spaceId } = await authorizeProjectDocs(ctx.db, ctx.actor, projectId, 'write');
  requireContentSize(input.content);
  await ctx.db.execute(sql`insert into project_documentation (project_id, organization_id) values (${projectId}, ${ctx.actor.organizationId})
                           on conflict (project_id) do nothing`);
  const [current] = await queryRows<{ version: number }>(
    ctx.db,
    sql`select version from project_documentation where project_id = ${projectId} for update`,
  );
  requireFresh(input.ifMatch, Number(current!.version));
  await ctx.db.execute(sql`update project_documentation
                           set content = ${input.content}, version = version + 1, updated_by_id = ${ctx.actor.userId}, updated_at = now()
                           where project_id = ${projectId}`);
  return announce(ctx, projectId, spaceId);
}

async function attach(ctx: Ctx, store: FileStore, projectId: number, spaceId: number, file: ReceivedFile, kind: Kind): Promise<FileRow> {
  const row = await recordFile(ctx, store, file, { purpose: `project-documentation-${kind}`, organizationId: ctx.actor.organizationId, spaceId });
  await ctx.db.execute(sql`insert into project_documentation_files (organization_id, project_id, file_id, kind)
                           values (${ctx.actor.organizationId}, ${projectId}, ${row.id}, ${kind})`);
  return row;
}

export async function uploadDocumentationImage(ctx: Ctx, store: FileStore, projectId: number, image: ReceivedFile) {
  const { spaceId } = await authorizeProjectDocs(ctx.db, ctx.actor, projectId, 'write');
  const file = presentFile(await attach(ctx, store, projectId, spaceId, image, 'image'));
  await announce(ctx, projectId, spaceId);
  return file;
}

export async function uploadDocumentationFiles(ctx: Ctx, store: FileStore, projectId: number, received: ReceivedFile[]) {
  const { spaceId } = await authorizeProjectDocs(ctx.db, ctx.actor, projectId, 'write');
  const stored = [];
  for (const file of received) stored.push(presentFile(await attach(ctx, store, projectId, spaceId, file, 'file')));
  await announce(ctx, projectId, spaceId);
  return stored;
}

/** Deletes one of the documentation's images: the file row now, the blob once that commits. */
export async function deleteDocumentationImage(ctx: Ctx, store: FileStore, projectId: number, fileId: number): Promise<void> {
  const { spaceId } = await authorizeProjectDocs(ctx.db, ctx.actor, projectId, 'write');
  const [image] = await queryRows<{ key: string }>(
    ctx.db,
    sql`select f.key from project_documentation_files d join files f on f.id = d.file_id
        where d.project_id = ${projectId} and d.file_id = ${fileId} and d.kind = 'image' and d.organization_id = ${ctx.actor.organizationId}
        for update of d`,
  );
  if (!image) throw notFound('documentation image');
  // Unlinked here: the file itself stays if a task cover or a message still shows it.
  await ctx.db.execute(sql`delete from project_documentation_files where project_id = ${projectId} and file_id = ${fileId}`);
  await deleteFiles(ctx, store, [fileId]);
  await announce(ctx, projectId, spaceId);
}
