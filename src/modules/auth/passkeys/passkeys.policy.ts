import { and, eq } from 'drizzle-orm';
import { passkeys } from '../../../db/schema/index.js';
import type { Actor } from '../../../platform/auth.js';
import { forbidden } from '../../../platform/errors.js';

/**
 * A passkey is its user's alone: nobody else lists, renames or removes it, and another user's passkey
 * id answers 404 like one that never existed.
 */
export const ownPasskey = (actor: Actor, passkeyId: number) => and(eq(passkeys.id, passkeyId), eq(passkeys.userId, actor.userId));

/**
 * Adding, renaming and removing passkeys takes a signed-in session. A personal API token may list
 * them, not change them: a passkey signs in, so a token able to add one could turn itself into
 * sessions that outlive its revocation.
 */
export function authorizePasskeyChange(actor: Actor): void {
  if (actor.sessionId === null) throw forbidden('passkeys are added and removed from a signed-in session, not with an API token');
}
