import type { stages } from '../../db/schema/index.js';
import type { StageDto } from './stages.schemas.js';

type StageRow = typeof stages.$inferSelect;

export const presentStage = (s: StageRow): StageDto => ({
  id: s.id,
  order: String(s.order),
  name: s.name,
  projectId: s.projectId,
  tasksLimit: s.tasksLimit,
  color: s.color,
});

export const presentStageWithAutomation = (s: StageRow, hasAutomatization: boolean) => ({
  id: s.id,
  order: s.order,
  name: s.name,
  projectId: s.projectId,
  tasksLimit: s.tasksLimit,
  color: s.color,
  hasAutomatization,
});
