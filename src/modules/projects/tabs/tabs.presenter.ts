import type { projectTabs } from '../../../db/schema/index.js';
import { iso } from '../../../platform/http.js';
import type { TabDto } from './tabs.schemas.js';

const idOrNull = (v: number | null) => (v === null ? null : Number(v));

export const presentTab = (t: typeof projectTabs.$inferSelect): TabDto => ({
  id: Number(t.id),
  projectId: Number(t.projectId),
  type: t.type,
  name: t.name,
  url: t.url,
  pageId: idOrNull(t.pageId),
  sourceProjectId: idOrNull(t.sourceProjectId),
  order: String(t.order),
  createdAt: iso(t.createdAt)!,
  updatedAt: iso(t.updatedAt)!,
});
