import type { reglamentGroups } from '../../../db/schema/index.js';
import { iso } from '../../../platform/http.js';
import type { ReglamentGroupDto } from './groups.schemas.js';

export const presentReglamentGroup = (g: typeof reglamentGroups.$inferSelect): ReglamentGroupDto => ({
  id: Number(g.id),
  spaceId: Number(g.spaceId),
  name: g.name,
  order: String(g.order),
  createdAt: iso(g.createdAt)!,
  updatedAt: iso(g.updatedAt)!,
});
