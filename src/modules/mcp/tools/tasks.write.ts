import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Ctx } from '../../../platform/context.js';
import { createTask, getTask } from '../../tasks/tasks.service.js';
import { renameTask, setTaskDates, setTaskImportance, setTaskStatus } from '../../tasks/properties/fields.service.js';
import { attachTaskLabel, detachTaskLabel } from '../../tasks/properties/labels.service.js';
import { replaceTaskAssignees } from '../../tasks/properties/people.service.js';
import { createSubtask, listSubtasks, setSubtaskChecked } from '../../tasks/subtasks/subtasks.service.js';
import { moveTasks } from '../../tasks/board/board.service.js';
import { sendMessage } from '../../tasks/messages/messages.service.js';
import { createTimeRecord } from '../../time/records.service.js';
import { getProject } from '../../projects/projects.service.js';
import { AppError } from '../../../platform/errors.js';
import { Directory, IMPORTANCE, STATUS, TaskBrief } from '../mcp.presenter.js';
import { pick, resolveColumn, resolveLabel, resolveProject, resolveUser } from '../mcp.names.js';
import { Day, Ref, Status, Text } from './shapes.js';
import { runTool, type ToolEnv } from './tool.js';

// No tool deletes: an agent misled by text it read can at worst add or change, never destroy.
const WRITE = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
const Title = z.string().trim().min(1).max(500);
const Importance = z.enum(IMPORTANCE);
const People = z.array(Ref('person')).max(50);
const Labels = z.array(Ref('label')).max(50);

/** A due date as the user gives it: a day, or an instant. */
const dueFields = (due: string | null | undefined) =>
  due === undefined ? {} : due === null ? { dateEnd: null, dateEndWithoutTime: null } : /^\d{4}-\d{2}-\d{2}$/.test(due) ? { dateEndWithoutTime: due, dateEnd: null } : { dateEnd: new Date(due).toISOString(), dateEndWithoutTime: null };

async function homeProject(ctx: Ctx, taskId: number) {
  const task = await getTask(ctx, taskId);
  const home = task.stages.find((s) => s.pinned) ?? task.stages[0];
  if (!home) throw new AppError('CONFLICT', 'the task is archived; restore it first');
  return { task, home, project: await getProject(ctx, home.projectId) };
}

const brief = async (ctx: Ctx, env: ToolEnv, taskId: number) => ({ task: await new Directory(ctx, env.app.config.publicUrl).task(await getTask(ctx, taskId)) });

export function registerTaskWriteTools(server: McpServer, env: ToolEnv): void {
  server.registerTool(
    'create_task',
    {
      title: 'Create a task',
      description: 'Create a task on a project board (in the first column unless one is named), with its description, assignees, labels, due date and subtasks.',
      inputSchema: {
        project: Ref('project'),
        column: Ref('column (default: the first)').optional(),
        title: Title,
        description: Text(100_000, 'plain text or Markdown').optional(),
        assignees: People.optional(),
        labels: Labels.optional(),
        due: Day.optional(),
        importance: Importance.optional(),
        subtasks: z.array(Title).max(50).optional(),
      },
      outputSchema: { task: TaskBrief },
      annotations: { title: 'Create a task', ...WRITE, idempotentHint: false },
    },
    (args, extra) =>
      runTool(env, extra, 'tasks:write', async (ctx) => {
        const project = await resolveProject(ctx, args.project);
        const column = args.column !== undefined ? resolveColumn(project, args.column) : project.stages[0];
        if (!column) throw new AppError('VALIDATION_FAILED', `project "${project.name}" has no columns`);
        const assignees = [];
        for (const ref of args.assignees ?? []) assignees.push((await resolveUser(ctx, project.spaceId, ref)).id);
        const labels = [];
        for (const ref of args.labels ?? []) labels.push((await resolveLabel(ctx, ref)).id);
        const { task } = await createTask(ctx, {
          name: args.title,
          stageId: column.id,
          description: args.description ?? null,
          responsibleUserId: assignees,
          ...dueFields(args.due),
          ...(args.importance ? { importance: IMPORTANCE.indexOf(args.importance) - 1 } : {}),
        });
        for (const labelId of new Set(labels)) await attachTaskLabel(ctx, task.id, labelId);
        for (const name of args.subtasks ?? []) await createSubtask(ctx, task.id, { name });
        return brief(ctx, env, task.id);
      }),
  );

  server.registerTool(
    'update_task',
    {
      title: 'Update a task',
      description: 'Change a task: title, status (with a reason for "needs attention"), dates, importance, assignees (replaced), labels (added and removed).',
      inputSchema: {
        taskId: z.number().int().positive(),
        title: Title.optional(),
        status: Status.optional(),
        blockReason: z.string().trim().min(1).max(2000).optional().describe('why it needs attention (with status "needs attention")'),
        start: Day.nullable().optional().describe('null clears it'),
        due: Day.nullable().optional().describe('null clears it'),
        importance: Importance.optional(),
        assignees: People.optional().describe('the new assignees (replacing the current ones; [] for none)'),
        addLabels: Labels.optional(),
        removeLabels: Labels.optional(),
      },
      outputSchema: { task: TaskBrief },
      annotations: { title: 'Update a task', ...WRITE, idempotentHint: true },
    },
    (args, extra) =>
      runTool(env, extra, 'tasks:write', async (ctx) => {
        const { task, project } = await homeProject(ctx, args.taskId);
        if (args.title !== undefined) await renameTask(ctx, task.id, args.title);
        if (args.status !== undefined) await setTaskStatus(ctx, task.id, { status: STATUS.indexOf(args.status), ...(args.blockReason ? { blockReason: args.blockReason } : {}) });
        if (args.start !== undefined || args.due !== undefined) {
          const start =
            args.start === undefined ? {} : args.start === null ? { dateBegin: null, dateBeginWithoutTime: null } : /^\d{4}-\d{2}-\d{2}$/.test(args.start) ? { dateBeginWithoutTime: args.start, dateBegin: null } : { dateBegin: new Date(args.start).toISOString(), dateBeginWithoutTime: null };
          await setTaskDates(ctx, task.id, { ...start, ...dueFields(args.due) });
        }
        if (args.importance !== undefined) await setTaskImportance(ctx, task.id, IMPORTANCE.indexOf(args.importance) - 1);
        if (args.assignees !== undefined) {
          const ids = [];
          for (const ref of args.assignees) ids.push((await resolveUser(ctx, project.spaceId, ref)).id);
          await replaceTaskAssignees(ctx, task.id, [...new Set(ids)]);
        }
        for (const ref of args.addLabels ?? []) {
          const label = await resolveLabel(ctx, ref);
          if (!(await getTask(ctx, task.id)).tags.includes(label.id)) await attachTaskLabel(ctx, task.id, label.id);
        }
        for (const ref of args.removeLabels ?? []) {
          const label = await resolveLabel(ctx, ref);
          if ((await getTask(ctx, task.id)).tags.includes(label.id)) await detachTaskLabel(ctx, task.id, label.id);
        }
        return brief(ctx, env, task.id);
      }),
  );

  server.registerTool(
    'move_task',
    {
      title: 'Move a task',
      description: "Move a task to another column of its board (or of another project's board, named with project).",
      inputSchema: { taskId: z.number().int().positive(), column: Ref('target column'), project: Ref('project of the column (default: the task’s own)').optional(), position: z.number().int().min(0).max(100_000).optional().describe('0 = top; default the end') },
      outputSchema: { task: TaskBrief },
      annotations: { title: 'Move a task', ...WRITE, idempotentHint: true },
    },
    (args, extra) =>
      runTool(env, extra, 'tasks:write', async (ctx) => {
        const project = args.project !== undefined ? await resolveProject(ctx, args.project) : (await homeProject(ctx, args.taskId)).project;
        const column = resolveColumn(project, args.column);
        await moveTasks(ctx, { taskIds: [args.taskId], stageId: column.id, ...(args.position !== undefined ? { order: args.position } : {}) });
        return brief(ctx, env, args.taskId);
      }),
  );

  server.registerTool(
    'comment_on_task',
    {
      title: 'Comment on a task',
      description: "Post a comment in a task's chat, as the user.",
      inputSchema: { taskId: z.number().int().positive(), text: z.string().trim().min(1).max(10_000) },
      outputSchema: { messageId: z.number().int(), taskId: z.number().int(), at: z.string() },
      annotations: { title: 'Comment on a task', ...WRITE, idempotentHint: false },
    },
    (args, extra) =>
      runTool(env, extra, 'tasks:write', async (ctx) => {
        const message = await sendMessage(ctx, env.app.files, args.taskId, { text: args.text });
        return { messageId: message.id, taskId: message.taskId, at: message.createdAt };
      }),
  );

  server.registerTool(
    'log_time',
    {
      title: 'Log time',
      description: 'Record time the user spent on a task.',
      inputSchema: {
        taskId: z.number().int().positive(),
        hours: z.number().positive().max(24),
        date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional().describe('the day (default today, UTC)'),
        comment: z.string().max(10_000).optional(),
      },
      outputSchema: { recordId: z.number().int(), taskId: z.number().int(), hours: z.number(), date: z.string(), taskSpentHours: z.number() },
      annotations: { title: 'Log time', ...WRITE, idempotentHint: false },
    },
    (args, extra) =>
      runTool(env, extra, 'tasks:write', async (ctx) => {
        const date = args.date ?? new Date().toISOString().slice(0, 10);
        const { record, task } = await createTimeRecord(ctx, { taskId: args.taskId, hours: args.hours, date, ...(args.comment ? { comment: args.comment } : {}) });
        return { recordId: record.id, taskId: task.id, hours: args.hours, date, taskSpentHours: task.factTime };
      }),
  );

  server.registerTool(
    'complete_subtask',
    {
      title: 'Complete a subtask',
      description: 'Tick a subtask of a task as done (or not done again).',
      inputSchema: { taskId: z.number().int().positive(), subtask: Ref('subtask'), done: z.boolean().default(true) },
      outputSchema: { task: TaskBrief, subtask: z.object({ id: z.number().int(), name: z.string(), done: z.boolean() }) },
      annotations: { title: 'Complete a subtask', ...WRITE, idempotentHint: true },
    },
    (args, extra) =>
      runTool(env, extra, 'tasks:write', async (ctx) => {
        const { items } = await listSubtasks(ctx, args.taskId, { limit: 500, offset: 0 });
        const subtask = pick('subtasks', args.subtask, items);
        if (subtask.isChecked !== args.done) await setSubtaskChecked(ctx, args.taskId, subtask.id, args.done);
        return { ...(await brief(ctx, env, args.taskId)), subtask: { id: subtask.id, name: subtask.name, done: args.done } };
      }),
  );
}
