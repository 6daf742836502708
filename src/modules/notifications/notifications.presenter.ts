import { sql } from 'drizzle-orm';
import { iso } from '../../platform/http.js';
import type { NotificationDto } from './notifications.schemas.js';

/** A notifications row as the module's raw statements return it (see COLUMNS). */
export interface NotificationRow {
  id: number;
  userId: number;
  type: string;
  text: string;
  taskId: number | null;
  projectId: number | null;
  spaceId: number | null;
  actorId: number | null;
  read: boolean;
  archived: boolean;
  createdAt: Date | string;
  updatedAt: Date | string;
}

/** The select/returning list every statement of the module uses, so rows always fit NotificationRow. */
export const COLUMNS = sql.raw(
  `id, user_id as "userId", type, text, task_id as "taskId", project_id as "projectId", space_id as "spaceId",
   actor_id as "actorId", read, archived, created_at as "createdAt", updated_at as "updatedAt"`,
);

const idOrNull = (v: number | null) => (v === null ? null : Number(v));

export const presentNotification = (n: NotificationRow): NotificationDto => ({
  id: Number(n.id),
  type: n.type,
  text: n.text,
  taskId: idOrNull(n.taskId),
  projectId: idOrNull(n.projectId),
  spaceId: idOrNull(n.spaceId),
  actorId: idOrNull(n.actorId),
  read: n.read,
  archived: n.archived,
  createdAt: iso(n.createdAt)!,
  updatedAt: iso(n.updatedAt)!,
});
