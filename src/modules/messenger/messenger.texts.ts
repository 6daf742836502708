import type { RecordedEvent } from '../../platform/events.js';

/**
 * What the bot writes. Telegram's HTML mode: everything from users is escaped, and each message
 * ends with a link to the task in the web client (PUBLIC_URL).
 */

export const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export const taskLink = (publicUrl: string, taskId: number) => `${publicUrl}/tasks/${taskId}`;

export interface NotificationFacts {
  text: string;
  taskId: number | null;
  taskName: string | null;
  projectName: string | null;
  actorName: string | null;
}

/** A notification: where (project · task), what happened, who, and the link; replying answers in the task's chat. */
export function notificationText(n: NotificationFacts, publicUrl: string): string {
  const lines: string[] = [];
  if (n.taskName !== null) lines.push(`<b>${escapeHtml(clip(n.projectName ?? '', 100))}</b> · ${escapeHtml(clip(n.taskName, 200))}`);
  lines.push(escapeHtml(clip(n.text, 1000)));
  if (n.actorName) lines.push(`— ${escapeHtml(clip(n.actorName, 100))}`);
  if (n.taskId !== null) lines.push(`${taskLink(publicUrl, n.taskId)}\n<i>Reply to this message to answer in the task's chat.</i>`);
  return lines.join('\n');
}

interface TaskChangePayload {
  task?: { id?: number; name?: string };
  history?: { state?: string; projectName?: string; taskName?: string };
}

/**
 * A project event for a group chat, or null when the bot cannot describe it (it is then skipped,
 * never sent raw). `names` gives the actors' and the tasks' names the payload does not carry.
 */
export function projectEventText(
  e: RecordedEvent,
  names: { actor: string | null; task: string | null; project: string | null },
  publicUrl: string,
): string | null {
  const by = names.actor ? ` — ${escapeHtml(clip(names.actor, 100))}` : '';
  const link = e.taskId !== null ? `\n${taskLink(publicUrl, e.taskId)}` : '';
  const project = escapeHtml(clip(names.project ?? '', 100));
  if (e.type === 'message.created') {
    const text = (e.payload as { text?: unknown } | null)?.text;
    if (typeof text !== 'string' || !text.trim() || !names.task) return null;
    return `<b>${project}</b> · ${escapeHtml(clip(names.task, 200))}\n💬 ${escapeHtml(clip(text, 1500))}${by}${link}`;
  }
  if (e.type === 'task.deleted') {
    // The task is gone by now: only its number is left to tell.
    return e.taskId === null ? null : `<b>${project}</b>\n🗑 task #${e.taskId} deleted${by}`;
  }
  const p = e.payload as TaskChangePayload | null;
  const state = p?.history?.state;
  const name = p?.task?.name ?? p?.history?.taskName;
  if (typeof state !== 'string' || typeof name !== 'string') return null;
  return `<b>${escapeHtml(clip(p?.history?.projectName ?? names.project ?? '', 100))}</b> · ${escapeHtml(clip(name, 200))}\n${escapeHtml(clip(state, 500))}${by}${link}`;
}
