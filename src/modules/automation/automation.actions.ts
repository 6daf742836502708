import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../db/client.js';
import type { Ctx } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { emit } from '../../platform/events.js';
import { deliver } from '../notifications/notifications.deliver.js';
import { archiveTask, moveTasks } from '../tasks/board/board.service.js';
import { sendMessage } from '../tasks/messages/messages.service.js';
import { setTaskDates, setTaskImportance, setTaskStatus } from '../tasks/properties/fields.service.js';
import { attachTaskLabel, detachTaskLabel } from '../tasks/properties/labels.service.js';
import { addTaskPerson, replaceTaskAssignees } from '../tasks/properties/people.service.js';
import { createTask } from '../tasks/tasks.service.js';
import type { TaskDto } from '../tasks/tasks.schemas.js';
import type { Action } from './automation.schemas.js';

/**
 * Each action goes through the same use case a person's request does, so WIP limits, date rules,
 * history rows and events are the ordinary ones; the acting Actor is the system (see
 * automation.engine.ts), which history records as the rule.
 */

export interface RunContext {
  app: FastifyInstance;
  ctx: Ctx;
  rule: { id: number; name: string; projectId: number; spaceId: number };
  run: { id: number; cause: string; eventId: number | null };
  /** The task the run is about; null for a schedule trigger. */
  task: TaskDto | null;
}

/** The run day (UTC) plus `days`, as a date. */
const dayPlus = (days: number): string => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

function taskOf(rc: RunContext): TaskDto {
  if (!rc.task) throw new AppError('VALIDATION_FAILED', 'this action needs a task');
  return rc.task;
}

export async function perform(rc: RunContext, action: Action, index: number): Promise<void> {
  const { ctx } = rc;
  switch (action.type) {
    case 'set-status':
      await setTaskStatus(ctx, taskOf(rc).id, { status: action.params.status });
      return;
    case 'set-assignees':
      await replaceTaskAssignees(ctx, taskOf(rc).id, action.params.userIds);
      return;
    case 'add-assignees':
      for (const userId of action.params.userIds) await addTaskPerson(ctx, 'assignees', taskOf(rc).id, userId);
      return;
    case 'add-members':
      for (const userId of action.params.userIds) await addTaskPerson(ctx, 'members', taskOf(rc).id, userId);
      return;
    case 'add-labels':
      for (const labelId of action.params.labelIds) await attachTaskLabel(ctx, taskOf(rc).id, labelId);
      return;
    case 'remove-labels':
      for (const labelId of action.params.labelIds) await detachTaskLabel(ctx, taskOf(rc).id, labelId);
      return;
    case 'set-importance':
      await setTaskImportance(ctx, taskOf(rc).id, action.params.importance);
      return;
    case 'set-due-date':
      await setTaskDates(ctx, taskOf(rc).id, { dateEnd: null, dateEndWithoutTime: dayPlus(action.params.days) });
      return;
    case 'move-to-stage':
      await moveTasks(ctx, { taskIds: [taskOf(rc).id], stageId: action.params.stageId });
      return;
    case 'archive': {
      const task = taskOf(rc);
      const home = (await currentStages(rc, task.id))[0];
      if (home === undefined) throw new AppError('CONFLICT', 'the task is already archived');
      await archiveTask(ctx, task.id, { stageId: home });
      return;
    }
    case 'add-comment':
      await sendMessage(ctx, rc.app.files, taskOf(rc).id, { text: action.params.text });
      return;
    case 'create-task': {
      const p = action.params;
      const created = await createTask(ctx, {
        name: p.name,
        stageId: p.stageId,
        description: p.description ?? null,
        responsibleUserId: p.assigneeIds ?? [],
        dateEndWithoutTime: p.dueInDays === undefined ? null : dayPlus(p.dueInDays),
      });
      for (const labelId of p.labelIds ?? []) await attachTaskLabel(ctx, created.task.id, labelId);
      return;
    }
    case 'notify': {
      const taskId = rc.task?.id ?? null;
      await deliver(
        ctx.db,
        action.params.userIds.map((userId) => ({
          organizationId: ctx.actor.organizationId,
          userId,
          type: 'automation.notice',
          text: action.params.text,
          dedupKey: `automation:${rc.run.id}:${index}`,
          taskId,
          projectId: rc.rule.projectId,
          spaceId: rc.rule.spaceId,
          actorId: null,
          eventId: rc.run.eventId,
        })),
        (e) => emit(ctx, e),
      );
      return;
    }
    case 'call-webhook': {
      const [hook] = await queryRows<{ enabled: boolean }>(
        ctx.db,
        sql`select enabled from webhooks where id = ${action.params.webhookId} and organization_id = ${ctx.actor.organizationId}`,
      );
      if (!hook) throw new AppError('NOT_FOUND', `webhook ${action.params.webhookId} no longer exists`);
      if (!hook.enabled) throw new AppError('CONFLICT', `webhook ${action.params.webhookId} is disabled`);
      // Recorded like any event and queued by the webhook pipeline, which sends it to this webhook only.
      emit(ctx, {
        type: 'automation.rule.triggered',
        projectId: rc.rule.projectId,
        spaceId: rc.rule.spaceId,
        taskId: rc.task?.id ?? null,
        payload: {
          ruleId: rc.rule.id,
          ruleName: rc.rule.name,
          runId: rc.run.id,
          cause: rc.run.cause,
          eventId: rc.run.eventId,
          taskId: rc.task?.id ?? null,
          webhookIds: [action.params.webhookId],
        },
      });
      return;
    }
  }
}

/** The columns the task sits in now, home first (an earlier action may have moved it). */
async function currentStages(rc: RunContext, taskId: number): Promise<number[]> {
  const rows = await queryRows<{ stageId: number }>(
    rc.ctx.db,
    sql`select stage_id as "stageId" from task_stages where task_id = ${taskId} and "order" is not null order by pinned desc, project_id`,
  );
  return rows.map((r) => Number(r.stageId));
}
