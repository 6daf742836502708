import { iso } from '../../platform/http.js';
import type { SpaceRole } from '../../platform/access.js';
import { fileLink } from '../files/files.presenter.js';
import type { SpaceDto } from './spaces.schemas.js';

/** A space row joined with the caller's settings, as the list and read queries return it. */
export interface SpaceRecord {
  id: number;
  name: string;
  icon: string | null;
  iconColor: string | null;
  background: string | null;
  customBackgroundKey: string | null;
  archivedAt: Date | string | null;
  introReglamentId: number | null;
  membersCount: number;
  creatorId: number | null;
  createdAt: Date | string;
  updatedAt: Date | string;
  role: SpaceRole;
  favorite: boolean | null;
  order: number | null;
  spaceGroupId: number | null;
}

export function presentSpace(r: SpaceRecord): SpaceDto {
  return {
    id: Number(r.id),
    name: r.name,
    icon: r.icon,
    iconColor: r.iconColor,
    background: r.background,
    customBackground: r.customBackgroundKey ? fileLink(r.customBackgroundKey) : null,
    archived: r.archivedAt !== null,
    archivedAt: iso(r.archivedAt),
    introReglamentId: r.introReglamentId === null ? null : Number(r.introReglamentId),
    membersCount: Number(r.membersCount),
    creatorId: r.creatorId === null ? null : Number(r.creatorId),
    createdAt: iso(r.createdAt)!,
    updatedAt: iso(r.updatedAt)!,
    role: r.role,
    favorite: Boolean(r.favorite),
    order: String(r.order ?? 0),
    spaceGroupId: r.spaceGroupId === null ? null : Number(r.spaceGroupId),
  };
}
