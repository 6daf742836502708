import type { projectGroups } from '../../../db/schema/index.js';
import { iso } from '../../../platform/http.js';
import type { ProjectGroupDto } from './groups.schemas.js';

export const presentProjectGroup = (g: typeof projectGroups.$inferSelect): ProjectGroupDto => ({
  id: Number(g.id),
  spaceId: Number(g.spaceId),
  name: g.name,
  order: String(g.order),
  createdAt: iso(g.createdAt)!,
  updatedAt: iso(g.updatedAt)!,
});
