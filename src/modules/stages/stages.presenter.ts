import type { stages } from '../../db/schema/index.js';
import type { StageColorDto, StageDto } from './stages.schemas.js';

type StageRow = typeof stages.$inferSelect;

export const presentStage = (s: StageRow): StageDto => ({
  id: Number(s.id),
  order: String(s.order),
  name: s.name,
  projectId: Number(s.projectId),
  tasksLimit: s.tasksLimit,
  color: s.color,
});

/** The spec's colour-update form: here `order` is an integer. */
export const presentStageWithAutomation = (s: StageRow, hasAutomatization: boolean): StageColorDto => ({
  id: Number(s.id),
  order: s.order,
  name: s.name,
  projectId: Number(s.projectId),
  tasksLimit: s.tasksLimit,
  color: s.color,
  hasAutomatization,
});
