import type { Actor } from '../../../platform/auth.js';
import { forbidden } from '../../../platform/errors.js';

/**
 * A user's second factor is theirs alone: every route acts on the caller's own. The organization's
 * requirement is a member-management setting, for owners and admins (conventions.md role table).
 */
export function authorizeRequirementChange(actor: Actor): void {
  if (actor.orgRole !== 'owner' && actor.orgRole !== 'admin') throw forbidden('organization admin role required');
}
