import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { requireRole, spaceRoleOf } from '../../platform/access.js';
import { forbidden } from '../../platform/errors.js';

/**
 * routes.md Webhooks: an organization-wide webhook is for organization owners and admins; a webhook
 * narrowed to a space (or to a project, which is kept with its home space) is for that space's
 * admins. Every operation needs the same role, since a webhook sees every event of its scope.
 */
const orgAdmin = (actor: Actor) => actor.orgRole === 'owner' || actor.orgRole === 'admin';

/** `what` names the resource in the 404 a caller who cannot see the space gets. */
export async function authorizeWebhookScope(db: Queryable, actor: Actor, spaceId: number | null, what = 'webhook'): Promise<void> {
  if (spaceId === null) {
    if (!orgAdmin(actor)) throw forbidden('organization admin role required for organization-wide webhooks');
    return;
  }
  requireRole(await spaceRoleOf(db, actor, spaceId), 'admin', what);
}

/** Spaces whose webhooks the caller manages; null means every one (organization owners and admins). */
export async function managedSpaceIds(db: Queryable, actor: Actor): Promise<number[] | null> {
  if (orgAdmin(actor)) return null;
  const rows = await queryRows<{ id: number }>(
    db,
    sql`select space_id as id from space_members
        where user_id = ${actor.userId} and organization_id = ${actor.organizationId} and role = 'admin'`,
  );
  return rows.map((r) => Number(r.id));
}
