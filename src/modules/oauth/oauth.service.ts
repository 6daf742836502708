import { and, desc, eq, gt, inArray, isNull, or, sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { oauthRecords, organizations } from '../../db/schema/index.js';
import type { Ctx } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { authorizeGrantManagement } from './oauth.policy.js';
import { presentConnectedApp, type GrantRow } from './oauth.presenter.js';
import type { ConnectedAppDto } from './oauth.schemas.js';

/** Whether the user is still an active member of the organization an OAuth account id names. */
export async function accountActive(db: Queryable, account: { userId: number; organizationId: number }): Promise<boolean> {
  const rows = await queryRows(
    db,
    sql`select 1 from organization_members
        where organization_id = ${account.organizationId} and user_id = ${account.userId} and active and deleted_at is null`,
  );
  return rows.length > 0;
}

export async function organizationName(db: Queryable, organizationId: number): Promise<string> {
  const [org] = await db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, organizationId));
  return org?.name ?? '';
}

const live = or(isNull(oauthRecords.expiresAt), gt(oauthRecords.expiresAt, sql`now()`));

/** The user's existing grant to a client in an organization, if any: consenting again adds to it instead of piling up grants. */
export async function existingGrantId(db: Queryable, account: { userId: number; organizationId: number }, clientId: string): Promise<string | null> {
  const [row] = await db
    .select({ id: oauthRecords.id })
    .from(oauthRecords)
    .where(
      and(
        eq(oauthRecords.model, 'Grant'),
        eq(oauthRecords.userId, account.userId),
        eq(oauthRecords.organizationId, account.organizationId),
        sql`${oauthRecords.payload}->>'clientId' = ${clientId}`,
        live,
      ),
    )
    .orderBy(desc(oauthRecords.createdAt))
    .limit(1);
  return row?.id ?? null;
}

async function grantsOf(ctx: Ctx, grantId?: string): Promise<GrantRow[]> {
  const grants = await ctx.db
    .select({
      id: oauthRecords.id,
      payload: oauthRecords.payload,
      organizationId: oauthRecords.organizationId,
      organizationName: organizations.name,
      createdAt: oauthRecords.createdAt,
      lastUsedAt: oauthRecords.lastUsedAt,
    })
    .from(oauthRecords)
    .innerJoin(organizations, eq(organizations.id, oauthRecords.organizationId))
    .where(and(eq(oauthRecords.model, 'Grant'), eq(oauthRecords.userId, ctx.actor.userId), live, grantId ? eq(oauthRecords.id, grantId) : undefined))
    .orderBy(desc(oauthRecords.createdAt));
  const clientIds = [...new Set(grants.map((g) => String((g.payload as { clientId?: string }).clientId ?? '')))];
  const clients = clientIds.length
    ? await ctx.db
        .select({ id: oauthRecords.id, payload: oauthRecords.payload })
        .from(oauthRecords)
        .where(and(eq(oauthRecords.model, 'Client'), inArray(oauthRecords.id, clientIds)))
    : [];
  const byId = new Map(clients.map((c) => [c.id, c.payload as Record<string, unknown>]));
  return grants.map((g) => ({ ...g, client: byId.get(String((g.payload as { clientId?: string }).clientId)) ?? null }));
}

/** The apps the user granted access, in every organization they granted it in, newest first. */
export async function listConnectedApps(ctx: Ctx, publicUrl: string): Promise<ConnectedAppDto[]> {
  authorizeGrantManagement(ctx.actor);
  return (await grantsOf(ctx)).map((g) => presentConnectedApp(g, publicUrl));
}

/**
 * Revokes one of the user's grants: the grant and every code, access and refresh token issued
 * under it are deleted, so the app's next request to /mcp answers 401 and its refresh fails.
 * Another user's grant (or one that does not exist) is 404.
 */
export async function revokeConnectedApp(ctx: Ctx, grantId: string): Promise<void> {
  authorizeGrantManagement(ctx.actor);
  const [grant] = await grantsOf(ctx, grantId);
  if (!grant) throw new AppError('NOT_FOUND', 'no such connected app');
  await ctx.db.delete(oauthRecords).where(eq(oauthRecords.grantId, grant.id));
  await ctx.db.delete(oauthRecords).where(and(eq(oauthRecords.model, 'Grant'), eq(oauthRecords.id, grant.id)));
}

/**
 * Codes, sessions and interactions expire in minutes, tokens in days: their rows go once expired.
 * Registration is open, so a client nobody allowed within 30 days goes too (an app that comes back
 * registers again). Hourly, by one instance.
 */
export async function purgeOAuthRecords(db: Queryable): Promise<void> {
  await db.execute(sql`delete from oauth_records where expires_at <= now()`);
  await db.execute(sql`
    delete from oauth_records c where c.model = 'Client' and c.created_at < now() - interval '30 days'
      and not exists (select 1 from oauth_records g where g.model = 'Grant' and g.payload->>'clientId' = c.id)`);
}
