import { and, eq } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { stages } from '../../db/schema/index.js';
import type { Actor } from '../../platform/auth.js';
import { requireRole, type SpaceRole } from '../../platform/access.js';
import { notFound } from '../../platform/errors.js';
import { authorizeProject } from '../projects/projects.policy.js';

// Column rows of the role table: columns are project structure, so editors shape them; readers see the board.
const RULES = {
  read: 'reader',
  create: 'editor',
  update: 'editor', // name, task limit, colour, position
  move: 'editor', // to another project (editor in both)
  delete: 'editor',
} as const satisfies Record<string, SpaceRole>;

export type StageAction = keyof typeof RULES;
export type StageRow = typeof stages.$inferSelect;

/** Actions on a project's set of columns (create, reorder); 404 for a project the caller cannot see or in the trash. */
export async function authorizeStages(db: Queryable, actor: Actor, projectId: number, action: StageAction): Promise<SpaceRole> {
  const role = await authorizeProject(db, actor, projectId, 'read');
  return requireRole(role, RULES[action], 'project');
}

/**
 * One column: 404 when the caller cannot see the project or the column is not in it (checked before
 * the role, so a reader learns nothing more), then 403.
 */
export async function authorizeStage(db: Queryable, actor: Actor, projectId: number, stageId: number, action: StageAction): Promise<StageRow> {
  const role = await authorizeProject(db, actor, projectId, 'read');
  const [stage] = await db
    .select()
    .from(stages)
    .where(and(eq(stages.id, stageId), eq(stages.projectId, projectId), eq(stages.organizationId, actor.organizationId)));
  if (!stage) throw notFound('stage');
  requireRole(role, RULES[action], 'stage');
  return stage;
}
