import type { spaceGroups } from '../../../db/schema/index.js';
import { iso } from '../../../platform/http.js';
import type { SpaceGroupDto } from './groups.schemas.js';

type GroupRow = typeof spaceGroups.$inferSelect;

export function presentSpaceGroup(row: GroupRow, spaceIds: number[]): SpaceGroupDto {
  return {
    id: Number(row.id),
    name: row.name,
    order: String(row.order),
    collapsed: row.collapsed,
    spaceIds,
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
  };
}
