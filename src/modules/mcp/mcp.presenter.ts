import * as z from 'zod';
import type { Ctx } from '../../platform/context.js';
import { getProject } from '../projects/projects.service.js';
import { listMembers } from '../spaces/members/members.service.js';
import { listLabels } from '../labels/labels.service.js';
import type { TaskDto } from '../tasks/tasks.schemas.js';
import type { HistoryDto } from '../tasks/history/history.schemas.js';

export const STATUS = ['in work', 'done', 'rejected', 'needs attention'] as const;
export const IMPORTANCE = ['not set', 'low', 'medium', 'high', 'critical'] as const;

const Named = z.object({ id: z.number().int(), name: z.string().nullable() });

/** The task form agents get: names beside ids, words for codes, the task's own text as plain data. */
export const TaskBrief = z.object({
  id: z.number().int(),
  title: z.string(),
  status: z.enum(STATUS),
  blockReason: z.string().nullable(),
  importance: z.enum(IMPORTANCE),
  project: Named.nullable(),
  column: Named.nullable(),
  assignees: z.array(Named),
  labels: z.array(Named),
  due: z.string().nullable().describe('dateEnd, or the due day (YYYY-MM-DD)'),
  createdAt: z.string(),
  updatedAt: z.string(),
  subtasks: z.object({ total: z.number().int(), done: z.number().int() }),
  url: z.string(),
});
export type TaskBriefDto = z.infer<typeof TaskBrief>;

export const HistoryItem = z.object({
  id: z.number().int(),
  taskId: z.number().int(),
  taskName: z.string(),
  projectName: z.string(),
  at: z.string(),
  userId: z.number().int().nullable(),
  type: z.number().int(),
  change: z.string(),
});

export const presentHistoryItem = (h: HistoryDto): z.infer<typeof HistoryItem> => ({
  id: h.id,
  taskId: h.taskId,
  taskName: h.taskName,
  projectName: h.projectName,
  at: h.updateDate,
  userId: h.userId,
  type: h.type,
  change: h.state,
});

/**
 * Names for ids, looked up through the same services as the HTTP API (so only what the user may
 * read), once per tool call.
 */
export class Directory {
  private projects = new Map<number, Promise<{ name: string; spaceId: number; stages: Map<number, string> } | null>>();
  private spaces = new Map<number, Promise<Map<number, string>>>();
  private labels: Promise<Map<number, string>> | null = null;

  constructor(
    private readonly ctx: Ctx,
    private readonly publicUrl: string,
  ) {}

  project(id: number) {
    if (!this.projects.has(id)) {
      this.projects.set(
        id,
        getProject(this.ctx, id)
          .then((p) => ({ name: p.name, spaceId: p.spaceId, stages: new Map(p.stages.map((s) => [s.id, s.name])) }))
          .catch(() => null),
      );
    }
    return this.projects.get(id)!;
  }

  people(spaceId: number) {
    if (!this.spaces.has(spaceId)) {
      this.spaces.set(
        spaceId,
        listMembers(this.ctx, spaceId, { limit: 1000, offset: 0 })
          .then((r) => new Map(r.items.map((m) => [m.userId, m.name])))
          .catch(() => new Map()),
      );
    }
    return this.spaces.get(spaceId)!;
  }

  labelNames() {
    this.labels ??= listLabels(this.ctx, { limit: 1000, offset: 0 })
      .then((r) => new Map(r.items.map((l) => [l.id, l.name])))
      .catch(() => new Map());
    return this.labels;
  }

  async task(t: TaskDto): Promise<TaskBriefDto> {
    const home = t.stages.find((s) => s.pinned) ?? t.stages[0];
    const project = home ? await this.project(home.projectId) : null;
    const people = project ? await this.people(project.spaceId) : new Map<number, string>();
    const labels = await this.labelNames();
    return {
      id: t.id,
      title: t.name,
      status: STATUS[t.status] ?? 'in work',
      blockReason: t.blockReason,
      importance: IMPORTANCE[t.importance + 1] ?? 'not set',
      project: home ? { id: home.projectId, name: project?.name ?? null } : null,
      column: home ? { id: home.stageId, name: project?.stages.get(home.stageId) ?? null } : null,
      assignees: t.responsibleUserId.map((id) => ({ id, name: people.get(id) ?? null })),
      labels: t.tags.map((id) => ({ id, name: labels.get(id) ?? null })),
      due: t.dateEnd ?? t.dateEndWithoutTime,
      createdAt: t.createdAt,
      updatedAt: t.updatedAt,
      subtasks: { total: t.list.length, done: t.list.filter((s) => s.isChecked).length },
      url: home ? `${this.publicUrl}/app/projects/${home.projectId}/tasks/${t.id}` : `${this.publicUrl}/app/`,
    };
  }

  tasks(items: TaskDto[]): Promise<TaskBriefDto[]> {
    return Promise.all(items.map((t) => this.task(t)));
  }
}
