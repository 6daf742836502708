import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { notFound } from '../../platform/errors.js';
import { iso } from '../../platform/http.js';
import type { PublicPageDto } from './docs.schemas.js';

/** Published children shown on a public page, at most this many (a public page is not a list endpoint). */
const PUBLIC_CHILDREN_LIMIT = 500;

/**
 * A published page for anyone holding its token. The token is the whole authorization: unpublishing
 * clears it and archiving hides the page, so either ends access at once. Content leaves sanitized.
 */
export async function readPublicPage(db: Queryable, publicToken: string): Promise<PublicPageDto> {
  const [page] = await queryRows<{ id: number; name: string; icon: string | null; content: string; updatedAt: Date | string }>(
    db,
    sql`select id, name, icon, content, updated_at as "updatedAt" from pages
        where public_token = ${publicToken} and archived_at is null`,
  );
  if (!page) throw notFound('page');
  const children = await queryRows<{ publicToken: string; name: string }>(
    db,
    sql`select public_token as "publicToken", name from pages
        where parent_page_id = ${page.id} and public_token is not null and archived_at is null
        order by "order", id limit ${PUBLIC_CHILDREN_LIMIT}`,
  );
  // The Markdown renderer and the sanitizer (13 MB with postcss) load with the first public page (issue 42).
  const { renderSafeHtml } = await import('./render.js');
  return {
    name: page.name,
    icon: page.icon,
    content: renderSafeHtml(page.content),
    updatedAt: iso(page.updatedAt)!,
    children: children.map((c) => ({ publicToken: c.publicToken, name: c.name })),
  };
}
