import { expect } from 'vitest';
import type { TestKit, TestUser } from '../../../test/app.js';
import { boardWithRoles, spaceMember } from '../tasks.fixtures.js';

// Test-only helpers for the chat tests (no production code imports this).

export const MESSAGE_KEYS = ['attachments', 'authorId', 'createdAt', 'editedAt', 'id', 'mentions', 'pinned', 'reactions', 'replyToId', 'taskId', 'text', 'updatedAt'];

export function expectMessageForm(message: Record<string, unknown>): void {
  expect(Object.keys(message).sort()).toEqual(MESSAGE_KEYS);
}

/** A board with a task, its reader, member and editor, and a helper to post messages. */
export async function chat(kit: TestKit) {
  const b = await boardWithRoles(kit);
  const task = await b.f.task(b.owner, b.stageIds[0]!, { name: 'Chatty' });
  const editor = await spaceMember(kit, b.owner, Number(b.space.id), 'editor');
  const send = async (user: TestUser, text: string, extra: Record<string, unknown> = {}) => {
    const res = await kit.as(user).post(`/tasks/${task.id}/messages`, { text, ...extra });
    if (res.statusCode !== 201) throw new Error(`send failed: ${res.statusCode} ${res.body}`);
    return res.json() as { id: number } & Record<string, unknown>;
  };
  return { ...b, editor, taskId: Number(task.id), send };
}
