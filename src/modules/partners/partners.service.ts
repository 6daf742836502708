import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Ctx } from '../../platform/context.js';
import { iso } from '../../platform/http.js';
import type { PartnerLinkDto } from './partners.schemas.js';

interface LinkRecord {
  id: number;
  partnerId: number;
  name: string;
  code: string;
  clicks: number;
  createdAt: Date | string;
}

/** Where a partner link points: the public click-tracking route. */
export const partnerLinkUrl = (publicUrl: string, code: string) => `${publicUrl}/public/partner-links/${code}`;

const presentLink = (r: LinkRecord, publicUrl: string): PartnerLinkDto => ({
  id: Number(r.id),
  partnerId: Number(r.partnerId),
  name: r.name,
  code: r.code,
  url: partnerLinkUrl(publicUrl, r.code),
  clicks: Number(r.clicks),
  createdAt: iso(r.createdAt)!,
});

const LINK_COLUMNS = sql`l.id, l.partner_id as "partnerId", l.name, l.code, l.created_at as "createdAt",
  (select count(*)::int from partner_link_visits v where v.link_id = l.id) as clicks`;

/** The caller's own links in its active organization, oldest first. */
export async function listLinks(ctx: Ctx, publicUrl: string, page: { limit: number; offset: number }) {
  const rows = await queryRows<LinkRecord & { total: number }>(
    ctx.db,
    sql`select ${LINK_COLUMNS}, count(*) over ()::int as total from partner_links l
        where l.partner_id = ${ctx.actor.userId} and l.organization_id = ${ctx.actor.organizationId}
        order by l.id limit ${page.limit} offset ${page.offset}`,
  );
  return { items: rows.map((r) => presentLink(r, publicUrl)), total: Number(rows[0]?.total ?? 0) };
}

/** Any user may join the programme by making a link; the code is random (72 bits), not derived from anything. */
export async function createLink(ctx: Ctx, publicUrl: string, name: string): Promise<PartnerLinkDto> {
  const code = randomBytes(9).toString('base64url');
  const [row] = await queryRows<{ id: number }>(
    ctx.db,
    sql`insert into partner_links (organization_id, partner_id, name, code) values (${ctx.actor.organizationId}, ${ctx.actor.userId}, ${name.trim()}, ${code})
        returning id`,
  );
  const [link] = await queryRows<LinkRecord>(ctx.db, sql`select ${LINK_COLUMNS} from partner_links l where l.id = ${row!.id}`);
  return presentLink(link!, publicUrl);
}

/** Counts a followed link (one statement, so no transaction is needed). False for an unknown code. */
export async function recordClick(db: Queryable, code: string): Promise<boolean> {
  const rows = await queryRows(
    db,
    sql`insert into partner_link_visits (organization_id, link_id) select organization_id, id from partner_links where code = ${code}
        returning link_id`,
  );
  return rows.length > 0;
}

/**
 * The registration hook: credits the link with the new user (and the organization it created). An
 * unknown code is ignored, as is a user already attributed; sign-up never fails because of a link.
 */
export async function attributeReferral(db: Queryable, userId: number, organizationId: number | null, code: string): Promise<void> {
  await db.execute(sql`
    insert into partner_referrals (organization_id, link_id, referred_user_id, referred_organization_id)
    select l.organization_id, l.id, ${userId}, ${organizationId}::bigint from partner_links l where l.code = ${code}
    on conflict do nothing`);
}
