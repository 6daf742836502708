import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { notFound } from '../../platform/errors.js';

/** Whose figures a statistics request may read: always the caller's own, in its active organization. */
export interface PartnerScope {
  partnerId: number;
  organizationId: number;
  linkId: number | null;
}

/**
 * A partner sees only itself: partnerId defaults to the caller and any other id is 404 (whether or
 * not that partner exists); a linkId must be one of the caller's links in this organization (404).
 */
export async function authorizePartnerScope(db: Queryable, actor: Actor, query: { partnerId?: number; linkId?: number }): Promise<PartnerScope> {
  if (query.partnerId !== undefined && query.partnerId !== actor.userId) throw notFound('partner');
  if (query.linkId !== undefined) {
    const rows = await queryRows(
      db,
      sql`select 1 from partner_links where id = ${query.linkId} and partner_id = ${actor.userId} and organization_id = ${actor.organizationId}`,
    );
    if (rows.length === 0) throw notFound('partner link');
  }
  return { partnerId: actor.userId, organizationId: actor.organizationId, linkId: query.linkId ?? null };
}
