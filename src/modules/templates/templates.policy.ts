import type { Actor } from '../../platform/auth.js';
import { forbidden } from '../../platform/errors.js';

/**
 * Templates are the organization's (routes.md): every member lists and uses them; making one is
 * decided on its source project (editor, through the projects policy); deleting one is for its
 * creator or an organization owner or admin.
 */
export function authorizeTemplateDelete(actor: Actor, template: { creatorId: number | null }): void {
  const orgAdmin = actor.orgRole === 'owner' || actor.orgRole === 'admin';
  if (!orgAdmin && template.creatorId !== actor.userId) throw forbidden('only its creator or an organization admin may delete a template');
}
