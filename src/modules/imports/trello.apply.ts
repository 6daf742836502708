import { sql } from 'drizzle-orm';
import { queryRows } from '../../db/client.js';
import type { Ctx } from '../../platform/context.js';
import { createLabel } from '../labels/labels.service.js';
import { createProject } from '../projects/projects.service.js';
import { allocateIds } from '../tasks/actions/copy.js';
import { TEXT_MAX } from '../tasks/messages/messages.schemas.js';
import { add, skip, type ImportReport } from './report.js';
import type { NewTask } from './task-writer.js';
import type { TrelloPlan } from './trello.map.js';

export interface TrelloSetup {
  project: { id: number; spaceId: number; name: string };
  stageIds: number[];
  /** Plan label index → label id. */
  labelIds: number[];
  /** Trello member id → the organization member with the same email, and whether the project may have them as assignee. */
  people: Map<string, { userId: number; assignable: boolean }>;
}

/**
 * The first transaction of a Trello import: the project (with project.created) and its columns,
 * the labels (an organization label of the same name is reused), and the Trello members matched
 * by email to active members of the organization.
 */
export async function setUpTrelloProject(ctx: Ctx, spaceId: number, plan: TrelloPlan, report: ImportReport): Promise<TrelloSetup> {
  let stageIds: number[] = [];
  let made = { id: 0, spaceId, name: plan.projectName };
  await createProject(ctx, { spaceId, name: plan.projectName }, async (project) => {
    made = project;
    stageIds = await allocateIds(ctx.db, 'stages', plan.columns.length);
    const columns = plan.columns.map((name, order) => ({ id: stageIds[order], name, order }));
    await ctx.db.execute(
      sql`insert into stages (id, organization_id, project_id, name, "order")
          overriding system value
          select c.id, ${ctx.actor.organizationId}, ${project.id}, c.name, c.order
          from jsonb_to_recordset(${JSON.stringify(columns)}::jsonb) as c(id bigint, name text, "order" int)`,
    );
  });
  add(report, 'columns', plan.columns.length);
  return { project: made, stageIds, labelIds: await resolveLabels(ctx, plan, report), people: await matchPeople(ctx, plan, made.id, report) };
}

async function resolveLabels(ctx: Ctx, plan: TrelloPlan, report: ImportReport): Promise<number[]> {
  if (plan.labels.length === 0) return [];
  const existing = await queryRows<{ id: number; key: string }>(
    ctx.db,
    sql`select distinct on (lower(name)) id, lower(name) as key from labels
        where organization_id = ${ctx.actor.organizationId} and lower(name) in (select jsonb_array_elements_text(${JSON.stringify(plan.labels.map((l) => l.name.toLowerCase()))}::jsonb))
        order by lower(name), id`,
  );
  const byName = new Map(existing.map((l) => [l.key, Number(l.id)]));
  const ids: number[] = [];
  for (const label of plan.labels) {
    const found = byName.get(label.name.toLowerCase());
    if (found !== undefined) {
      add(report, 'labelsReused');
      ids.push(found);
    } else {
      add(report, 'labelsCreated');
      ids.push((await createLabel(ctx, label)).id);
    }
  }
  return ids;
}

async function matchPeople(ctx: Ctx, plan: TrelloPlan, projectId: number, report: ImportReport): Promise<TrelloSetup['people']> {
  const withEmail = plan.people.filter((p) => p.email);
  skip(report, 'Trello members without an email in the export could not be matched (their comments are credited in the text; they are not assigned)', plan.people.length - withEmail.length);
  if (withEmail.length === 0) return new Map();
  const rows = await queryRows<{ id: number; email: string; assignable: boolean }>(
    ctx.db,
    sql`select u.id, lower(u.email) as email,
          (om.role in ('owner', 'admin') or exists (select 1 from space_members sm join projects p on p.id = ${projectId}
             where sm.user_id = u.id and sm.space_id = p.space_id)) as assignable
        from users u join organization_members om on om.user_id = u.id and om.organization_id = ${ctx.actor.organizationId}
          and om.active and om.deleted_at is null
        where lower(u.email) in (select jsonb_array_elements_text(${JSON.stringify(withEmail.map((p) => p.email))}::jsonb))`,
  );
  const byEmail = new Map(rows.map((r) => [r.email, { userId: Number(r.id), assignable: r.assignable }]));
  const people = new Map<string, { userId: number; assignable: boolean }>();
  for (const person of withEmail) {
    const user = byEmail.get(person.email!);
    if (user) people.set(person.id, user);
  }
  add(report, 'membersMatched', people.size);
  skip(report, 'Trello members whose email is not an active member here were not matched', withEmail.length - people.size);
  return people;
}

/** The plan's cards as tasks of the new project, people and labels resolved. */
export function trelloTasks(plan: TrelloPlan, setup: TrelloSetup, importerId: number, report: ImportReport): NewTask[] {
  const names = new Map(plan.people.map((p) => [p.id, p.name]));
  return plan.tasks.map((card) => {
    const assignees = card.members.flatMap((id) => {
      const person = setup.people.get(id);
      if (!person) {
        skip(report, 'card members not matched to a member here were not assigned');
        return [];
      }
      if (!person.assignable) {
        skip(report, 'card members who are not members of the space were not assigned');
        return [];
      }
      return [person.userId];
    });
    const messages = card.comments.map((c) => {
      const author = c.memberId ? setup.people.get(c.memberId) : undefined;
      if (author) return { authorId: author.userId, text: c.text.slice(0, TEXT_MAX), at: c.at };
      // Written by the importing user, the original author named first.
      const name = (c.memberId && names.get(c.memberId)) || c.authorName;
      add(report, 'commentsCredited');
      return { authorId: importerId, text: `${name} (on Trello):\n${c.text}`.slice(0, TEXT_MAX), at: c.at };
    });
    return {
      stageId: setup.stageIds[card.column]!,
      name: card.name,
      description: card.description,
      color: null,
      status: card.done ? 1 : 0,
      importance: -1,
      dateBegin: card.dateBegin,
      dateEnd: card.dateEnd,
      dateBeginWithoutTime: null,
      dateEndWithoutTime: null,
      planTime: 0,
      blockReason: null,
      archived: card.archived,
      labelIds: card.labels.map((i) => setup.labelIds[i]!),
      assigneeIds: assignees,
      memberIds: [],
      subtasks: card.subtasks,
      messages,
    };
  });
}
