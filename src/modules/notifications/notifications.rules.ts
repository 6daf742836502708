import type { RecordedEvent } from '../../platform/events.js';
import type { TaskDto } from '../tasks/tasks.schemas.js';
import type { HistoryDto } from '../tasks/history/history.schemas.js';
import type { Candidate } from './notifications.deliver.js';

/**
 * Notifications that follow from a task event alone: the payload holds the task's final form and
 * its history record, so these rules need no query. History types are those of conventions.md.
 */
const H = { created: 0, status: 4, assignees: 8, members: 9, inspectors: 15, duplicated: 20, needsAttention: 21 } as const;

/** History types that can notify anyone; every other task event is skipped without looking further. */
export const NOTIFYING_HISTORY = new Set<number>(Object.values(H));

const STATUS = ['in work', 'done', 'rejected', 'needs attention'];
const VERDICT: Record<number, string> = { 1: 'approved', 2: 'rejected' };

interface TaskPayload {
  task: TaskDto;
  history: HistoryDto;
}

export function historyTypeOf(event: RecordedEvent): number | null {
  const history = (event.payload as Partial<TaskPayload> | null)?.history;
  return typeof history?.type === 'number' ? history.type : null;
}

export function taskCandidates(event: RecordedEvent): Candidate[] {
  const { task, history } = event.payload as TaskPayload;
  if (!task || !history) return [];
  const out: Candidate[] = [];
  const to = (userIds: Iterable<number | null>, type: string, dedupKey: string, text: string) => {
    for (const userId of new Set(userIds)) {
      if (userId === null || userId === event.actorId) continue;
      out.push({
        organizationId: event.organizationId,
        userId,
        type,
        text,
        dedupKey,
        taskId: task.id,
        projectId: event.projectId,
        spaceId: event.spaceId,
        actorId: event.actorId,
        eventId: event.id,
      });
    }
  };
  const name = `“${task.name}”`;
  const h = history.type;
  const createsTask = h === H.created || h === H.duplicated;

  // Keyed by task only: whoever was assigned once is not told again after being removed and re-added.
  if (createsTask || h === H.assignees) {
    to(task.responsibleUserId, 'task.assigned', `task.assigned:${task.id}`, `You were assigned to ${name}`);
  }
  if (createsTask || h === H.members) {
    to(task.members, 'task.member-added', `task.member-added:${task.id}`, `You were added to ${name}`);
  }
  if (createsTask || h === H.inspectors) {
    // A request is the change that made an inspector wait (added, or put back to waiting after a
    // verdict): keyed by its history record, so each new request is news. A change of inspectors
    // requests only those it touched (their row's time is the history record's time, as for
    // verdicts below): adding a second inspector does not ask the first, still waiting, again.
    const requested = task.inspectors.filter((i) => i.status === 0 && (createsTask || i.updatedAt === history.updateDate));
    for (const inspector of requested) {
      to([inspector.userId], 'inspector.requested', `inspector.requested:${history.id}:${inspector.userId}`, `Your review is requested on ${name}`);
    }
  }
  if (h === H.inspectors) {
    // The verdict given in this change: its row was touched at the transaction's time, which is also
    // the history record's time (both take now()). Keyed by history record: each verdict counts.
    for (const inspector of task.inspectors.filter((i) => VERDICT[i.status] && i.updatedAt === history.updateDate)) {
      to(
        [task.creatorId, ...task.responsibleUserId],
        'inspector.verdict',
        `inspector.verdict:${history.id}:${inspector.userId}`,
        `An inspector ${VERDICT[inspector.status]} ${name}`,
      );
    }
  }
  if (h === H.status || h === H.needsAttention) {
    // The creator and the task's members follow it.
    to([task.creatorId, ...task.members], 'task.status', `task.status:${history.id}`, `${name} is now ${STATUS[task.status] ?? `status ${task.status}`}`);
  }
  return out;
}
