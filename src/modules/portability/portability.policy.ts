import type { Actor } from '../../platform/auth.js';
import { forbidden } from '../../platform/errors.js';

/**
 * Exporting hands out every row of the organization, importing creates one from an archive: both
 * are for the organization's owner and admins (conventions.md, O:owner/admin), and so is reading
 * their jobs. A job of another organization does not exist for the caller (404, in the service).
 */
export function authorizePortability(actor: Actor): void {
  if (actor.orgRole !== 'owner' && actor.orgRole !== 'admin') throw forbidden('only the organization’s owner and admins may export or import it');
}
