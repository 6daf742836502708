/**
 * Every event type the change log may hold (routes.md "Real-time events"). Real-time clients and
 * webhooks filter by these names, exactly or by prefix (`task.*`), or take everything (`*`).
 * Their payload schemas are in src/modules/events/events.catalogue.ts.
 */
export const EVENT_TYPES = [
  'task.created', 'task.updated', 'task.moved', 'task.left', 'task.archived', 'task.restored', 'task.deleted', 'task.duplicated',
  'message.created', 'message.updated', 'message.deleted', 'message.pinned', 'message.reaction.added', 'message.reaction.removed',
  'time-record.created', 'time-record.updated', 'time-record.deleted', 'timer.started', 'timer.stopped',
  'stage.created', 'stage.updated', 'stage.moved', 'stage.sorted', 'stage.deleted',
  'project.created', 'project.updated', 'project.deleted', 'project.restored', 'project.linked', 'project.unlinked',
  'tab.created', 'tab.updated', 'tab.deleted',
  'table.updated',
  'space.created', 'space.updated', 'space.archived', 'space.restored', 'space.deleted',
  'space.member.added', 'space.member.updated', 'space.member.removed',
  'reglament.created', 'reglament.updated', 'reglament.published', 'reglament.deleted', 'reglament.passed', 'reglament.version.created',
  'reglament.question.created', 'reglament.question.updated', 'reglament.question.deleted',
  'page.created', 'page.updated', 'page.moved', 'page.archived', 'page.restored', 'page.deleted', 'page.published', 'page.unpublished',
  'notification.created', 'notification.updated', 'notification.deleted',
  'organization.updated', 'organization.member.created', 'organization.member.updated', 'organization.member.deleted',
  'label.created', 'label.updated', 'label.deleted',
  'webhook.ping', 'webhook.disabled',
  'automation.rule.created', 'automation.rule.updated', 'automation.rule.deleted', 'automation.rule.failed', 'automation.rule.triggered',
  'ai.indexing.progress', 'ai.indexing.finished',
  'import.progress', 'import.finished',
  'export.progress', 'export.finished', 'organization.import.progress', 'organization.import.finished',
  'integration.connected', 'integration.disconnected',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

const KNOWN = new Set<string>(EVENT_TYPES);

/** A filter entry: an exact type, a prefix with `.*`, or `*`. */
export function isEventPattern(pattern: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) {
    const prefix = pattern.slice(0, -1);
    return EVENT_TYPES.some((t) => t.startsWith(prefix));
  }
  return KNOWN.has(pattern);
}

/** Whether an event type matches any of the patterns (an empty list matches everything). */
export function matchesTypes(type: string, patterns: readonly string[] | null | undefined): boolean {
  if (!patterns || patterns.length === 0) return true;
  return patterns.some((p) => p === '*' || p === type || (p.endsWith('.*') && type.startsWith(p.slice(0, -1))));
}

/**
 * The reglament a reglament.* event is about: `reglamentId` in the payloads of passes, versions and
 * questions, `id` in the reglament's own forms. Who may read it is decided by that reglament.
 */
export function reglamentIdOf(type: string, payload: unknown): number | null {
  if (!type.startsWith('reglament.')) return null;
  const p = payload as { id?: unknown; reglamentId?: unknown } | null;
  const id = typeof p?.reglamentId === 'number' ? p.reglamentId : p?.id;
  return typeof id === 'number' ? id : null;
}
