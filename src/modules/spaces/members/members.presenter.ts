import { iso } from '../../../platform/http.js';
import type { SpaceRole } from '../../../platform/access.js';
import { fileLink } from '../../files/files.presenter.js';
import type { SpaceMemberDto } from './members.schemas.js';

/** A space_members row joined with its user, as the member queries return it. */
export interface MemberRecord {
  id: number;
  userId: number;
  name: string;
  email: string;
  avatarKey: string | null;
  role: SpaceRole;
  joinedAt: Date | string;
  invitedById: number | null;
}

export function presentSpaceMember(r: MemberRecord): SpaceMemberDto {
  return {
    id: Number(r.id),
    userId: Number(r.userId),
    name: r.name,
    email: r.email,
    avatar: r.avatarKey ? fileLink(r.avatarKey) : null,
    role: r.role,
    joinedAt: iso(r.joinedAt)!,
    invitedById: r.invitedById === null ? null : Number(r.invitedById),
    createdAt: iso(r.joinedAt)!,
  };
}
