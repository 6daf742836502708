import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { projectRoleOf, requireRole, type SpaceRole } from '../../platform/access.js';

/**
 * routes.md "Columns and rows": reading the table is S:reader, shaping it (columns) S:editor,
 * filling it (rows) S:member, on the project's spaces. A project in the trash has no table (404).
 */
const RULES = {
  read: 'reader',
  editColumns: 'editor',
  editRows: 'member',
} as const satisfies Record<string, SpaceRole>;

export type TableAction = keyof typeof RULES;

export async function authorizeTable(db: Queryable, actor: Actor, projectId: number, action: TableAction): Promise<void> {
  const [live] = await queryRows<{ id: number }>(
    db,
    sql`select id from projects where id = ${projectId} and organization_id = ${actor.organizationId} and deleted_at is null`,
  );
  requireRole(live ? await projectRoleOf(db, actor, projectId) : null, RULES[action], 'project');
}
