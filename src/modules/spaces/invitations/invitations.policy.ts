import type { Queryable } from '../../../db/client.js';
import type { Actor } from '../../../platform/auth.js';
import { AppError } from '../../../platform/errors.js';
import { authorizeSpace } from '../spaces.policy.js';
import type { InvitationState } from './invitations.schemas.js';

/**
 * Inviting by email is the invite link's act (conventions.md: space admins manage members and invite
 * links): the same rule, so whoever may hand out the link may email it to one address, and no one else.
 */
export const authorizeInvitations = (db: Queryable, actor: Actor, spaceId: number) => authorizeSpace(db, actor, spaceId, 'manageInviteLink');

/** An invitation link that is no longer pending says why, each reason with its own code. */
export function requirePending(state: InvitationState): void {
  if (state === 'accepted') throw new AppError('INVITATION_ACCEPTED', 'this invitation has been accepted already; sign in to open the space');
  if (state === 'revoked') throw new AppError('INVITATION_REVOKED', 'this invitation was withdrawn by an admin of the space; ask them for a new one');
  if (state === 'expired') throw new AppError('INVITATION_EXPIRED', 'this invitation link has expired; ask an admin of the space to send it again');
}
