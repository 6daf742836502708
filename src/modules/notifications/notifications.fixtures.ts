import { sql } from 'drizzle-orm';
import type { TestKit, TestUser } from '../../test/app.js';
import { factories } from '../../test/factories.js';
import type { NotificationDto } from './notifications.schemas.js';

// Test builders for the notifications module (imported by its tests only).

export const NOTIFICATION_KEYS = ['actorId', 'archived', 'createdAt', 'id', 'projectId', 'read', 'spaceId', 'taskId', 'text', 'type', 'updatedAt'];

export type Note = NotificationDto;

export function notificationKit(t: TestKit) {
  const f = factories(t);
  const kit = {
    ...f,
    /** Every unarchived notification of the user, newest first. */
    async notes(user: TestUser, query = ''): Promise<Note[]> {
      const res = await t.as(user).get(`/notifications?limit=500${query}`);
      if (res.statusCode !== 200) throw new Error(`listing notifications failed: ${res.statusCode} ${res.body}`);
      return res.json() as Note[];
    },
    /** Rows of the notifications table for a user, whatever their state. */
    async rows(userId: number) {
      return t.sql<{ type: string; dedup_key: string; task_id: number | null }>(
        sql`select type, dedup_key, task_id from notifications where user_id = ${userId} order by id`,
      );
    },
    /** notification.created events addressed to the user. */
    async createdEvents(user: TestUser) {
      return t.sql<{ user_id: number; payload: { id: number; type: string } }>(
        sql`select user_id, payload from events where organization_id = ${user.organizationId} and type = 'notification.created' and user_id = ${user.id} order by id`,
      );
    },
    /**
     * An owner's board with a space member who assigns the owner to a task: the owner ends up with
     * one task.assigned notification.
     */
    async world() {
      const board = await f.board(1);
      const member = await f.spaceMember(board.owner, board.space.id, 'member');
      const task = await f.task(member, board.stages[0]!.id, { name: 'Fix the roof', responsibleUserId: [board.owner.id] });
      const [note] = await kit.notes(board.owner);
      if (!note) throw new Error('the assignment made no notification');
      return { ...board, member, task, note };
    },
  };
  return kit;
}
