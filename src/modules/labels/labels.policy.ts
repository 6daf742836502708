import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { forbidden } from '../../platform/errors.js';

/**
 * Labels are organization-wide (routes.md): any member reads them; creating and editing needs the
 * editor role in at least one space (organization owners and admins always); deleting, which strips
 * the label from every task of every space, is for organization admins.
 */
export type LabelAction = 'read' | 'create' | 'update' | 'delete';

async function editsSomeSpace(db: Queryable, actor: Actor): Promise<boolean> {
  const rows = await queryRows<{ ok: number }>(
    db,
    sql`select 1 as ok from space_members where user_id = ${actor.userId} and organization_id = ${actor.organizationId}
        and role in ('admin', 'editor') limit 1`,
  );
  return rows.length > 0;
}

export async function authorizeLabels(db: Queryable, actor: Actor, action: LabelAction): Promise<void> {
  const orgAdmin = actor.orgRole === 'owner' || actor.orgRole === 'admin';
  if (action === 'read' || orgAdmin) return;
  if (action === 'delete') throw forbidden('organization admin role required');
  if (!(await editsSomeSpace(db, actor))) throw forbidden('space editor role required in some space');
}
