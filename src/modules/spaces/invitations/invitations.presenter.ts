import { iso } from '../../../platform/http.js';
import type { InvitationDto, InvitationState } from './invitations.schemas.js';

/** A space_invitations row as the invitation queries read it, its state worked out by the database's clock. */
export interface InvitationRecord {
  id: number;
  spaceId: number;
  email: string;
  role: InvitationDto['role'];
  state: InvitationState;
  invitedById: number | null;
  expiresAt: Date | string;
  sentAt: Date | string;
  createdAt: Date | string;
}

/** The SpaceInvitation form: never the token or its hash. */
export function presentInvitation(r: InvitationRecord): InvitationDto {
  return {
    id: Number(r.id),
    spaceId: Number(r.spaceId),
    email: r.email,
    role: r.role,
    state: r.state,
    invitedById: r.invitedById === null ? null : Number(r.invitedById),
    expiresAt: iso(r.expiresAt)!,
    sentAt: iso(r.sentAt)!,
    createdAt: iso(r.createdAt)!,
  };
}
