import type { projectTemplates } from '../../db/schema/index.js';
import { iso } from '../../platform/http.js';
import type { TemplateDto } from './templates.schemas.js';

const idOrNull = (v: number | null) => (v === null ? null : Number(v));

export const presentTemplate = (t: typeof projectTemplates.$inferSelect): TemplateDto => ({
  id: Number(t.id),
  name: t.name,
  sourceProjectId: idOrNull(t.sourceProjectId),
  withTasks: t.withTasks,
  stages: t.stages.map((s) => ({ name: s.name, color: s.color, tasksLimit: s.tasksLimit })),
  creatorId: idOrNull(t.creatorId),
  createdAt: iso(t.createdAt)!,
  updatedAt: iso(t.updatedAt)!,
});
