import type { Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { requireRole } from '../../platform/access.js';
import { authorizeProject } from '../projects/projects.policy.js';

/**
 * routes.md: the personal integration is the caller's own (self); a project's chat is seen by its
 * readers and set up, changed and removed by its editors. Another organization's project, one the
 * caller cannot see, or one in the trash is a 404.
 */
const PROJECT = { read: 'reader', write: 'editor' } as const;

export async function authorizeProjectChat(db: Queryable, actor: Actor, projectId: number, action: keyof typeof PROJECT): Promise<void> {
  requireRole(await authorizeProject(db, actor, projectId, 'read'), PROJECT[action], 'project');
}
