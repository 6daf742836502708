import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { CONTENT_MAX_BYTES } from '../../db/schema/index.js';
import type { Actor } from '../../platform/auth.js';
import { AppError } from '../../platform/errors.js';
import { ifMatchAdmits } from '../../platform/content-etag.js';

/** Consecutive writes by one author within this window become one history entry. */
export const VERSION_MERGE_WINDOW_MS = 5 * 60_000;

export function requireFresh(header: string | undefined, version: number): void {
  if (!ifMatchAdmits(header, version)) {
    throw new AppError('STALE_VERSION', `the document changed since it was read (current version ${version}); read it again and retry`);
  }
}

export const contentBytes = (content: string) => Buffer.byteLength(content, 'utf8');

/** Size is checked in bytes here; the schema's maxLength counts characters. */
export function requireContentSize(content: string): number {
  const size = contentBytes(content);
  if (size > CONTENT_MAX_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', `content is larger than ${CONTENT_MAX_BYTES} bytes`);
  return size;
}

/**
 * Records an accepted write of a page's content in its history: the latest entry moves forward
 * when the same author wrote it within the merge window, otherwise a new entry starts.
 */
export async function recordPageVersion(db: Queryable, actor: Actor, pageId: number, version: number, content: string): Promise<void> {
  const size = contentBytes(content);
  const [latest] = await queryRows<{ id: number; userId: number | null; recent: boolean }>(
    db,
    sql`select id, user_id as "userId", created_at > now() - make_interval(secs => ${VERSION_MERGE_WINDOW_MS / 1000}) as recent
        from page_versions where page_id = ${pageId} order by version desc limit 1 for update`,
  );
  if (latest && latest.recent && Number(latest.userId) === actor.userId) {
    await db.execute(sql`update page_versions set version = ${version}, size = ${size}, content = ${content}, created_at = now()
                         where id = ${latest.id}`);
    return;
  }
  await db.execute(sql`insert into page_versions (organization_id, page_id, version, user_id, size, content)
                       values (${actor.organizationId}, ${pageId}, ${version}, ${actor.userId}, ${size}, ${content})`);
}
