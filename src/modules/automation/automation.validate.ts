import { sql, type SQL } from 'drizzle-orm';
import { idArray, queryRows, type Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { AppError } from '../../platform/errors.js';
import { authorizeColumn, requireAssignable } from '../tasks/tasks.policy.js';
import { authorizeWebhookScope } from '../webhooks/webhooks.policy.js';
import type { Action, Condition, Trigger } from './automation.schemas.js';

/**
 * What the body schema cannot say: which trigger fields each type needs, which conditions make
 * sense, and that every id names something of the project's organization that the rule's creator
 * may use now (a column of this project for triggers and conditions; a column they may add tasks to
 * for move-to-stage and create-task; assignable users; labels; a webhook they manage). Every
 * refusal is a 400 naming the field, and nothing is saved.
 */

export interface RuleSpec {
  trigger: Trigger;
  conditions: Condition[];
  actions: Action[];
}

export interface CheckedRule {
  /** Every column the rule names (Stage.hasAutomatization, `?stageId`). */
  stageIds: number[];
  /** The next occurrence of a schedule trigger, else null. */
  nextRunAt: Date | null;
}

const invalid = (path: string, message: string): AppError => new AppError('VALIDATION_FAILED', `${path.slice(1)}: ${message}`, [{ path, message }]);

const TRIGGER_FIELDS: Record<Trigger['type'], { required: string[]; allowed: string[] }> = {
  'task.created': { required: [], allowed: ['stageId'] },
  'entered-stage': { required: ['stageId'], allowed: ['stageId'] },
  'left-stage': { required: ['stageId'], allowed: ['stageId'] },
  'status-changed': { required: [], allowed: ['status'] },
  'assignee-added': { required: [], allowed: ['userId'] },
  'label-added': { required: [], allowed: ['labelId'] },
  'checklist-completed': { required: [], allowed: [] },
  'due-date-reached': { required: [], allowed: [] },
  overdue: { required: [], allowed: [] },
  schedule: { required: ['cron', 'timezone'], allowed: ['cron', 'timezone'] },
};

/** Actions that need no task: the only ones a schedule trigger may have. */
const TASKLESS = new Set<Action['type']>(['create-task', 'notify', 'call-webhook']);

/** The next occurrence after `after`, or a 400 for an expression or time zone croner refuses. */
export async function nextOccurrence(trigger: Trigger, after: Date = new Date()): Promise<Date> {
  // Loaded by the first schedule rule written or due, not at start (issue 42).
  const { Cron } = await import('croner');
  try {
    new Intl.DateTimeFormat('en', { timeZone: trigger.timezone });
  } catch {
    throw invalid('/trigger/timezone', 'is not an IANA time zone');
  }
  let next: Date | null;
  try {
    next = new Cron(trigger.cron!, { timezone: trigger.timezone, paused: true }).nextRun(after);
  } catch (err) {
    throw invalid('/trigger/cron', `is not a cron expression (${(err as Error).message})`);
  }
  if (!next) throw invalid('/trigger/cron', 'never occurs again');
  return next;
}

function checkTrigger(trigger: Trigger): void {
  const fields = TRIGGER_FIELDS[trigger.type];
  for (const key of Object.keys(trigger)) {
    if (key !== 'type' && !fields.allowed.includes(key)) throw invalid(`/trigger/${key}`, `is not a field of a ${trigger.type} trigger`);
  }
  for (const key of fields.required) {
    if ((trigger as Record<string, unknown>)[key] === undefined) throw invalid(`/trigger/${key}`, `is required by a ${trigger.type} trigger`);
  }
}

const isId = (v: unknown): v is number => Number.isInteger(v) && (v as number) > 0;

/** Which ops each field takes, and what value each op needs there. */
function checkCondition(c: Condition, path: string): void {
  const fail = (message: string) => invalid(path, `${c.field} ${c.op}: ${message}`);
  const v = c.value;
  switch (c.field) {
    case 'stage':
    case 'status':
    case 'importance': {
      if (c.op === 'eq' || c.op === 'neq') {
        if (!Number.isInteger(v)) throw fail('value must be a number');
      } else if (c.op === 'in') {
        if (!Array.isArray(v) || v.length === 0) throw fail('value must be a non-empty list of numbers');
      } else throw fail('takes eq, neq or in');
      const values = Array.isArray(v) ? v : [v as number];
      if (c.field === 'status' && values.some((x) => x < 0 || x > 3)) throw fail('statuses are 0 to 3');
      if (c.field === 'importance' && values.some((x) => x < -1 || x > 3)) throw fail('importance is -1 to 3');
      if (c.field === 'stage' && !values.every(isId)) throw fail('stages are ids');
      return;
    }
    case 'labels':
    case 'assignees':
    case 'members':
      if (c.op === 'contains') {
        if (!isId(v)) throw fail('value must be an id');
      } else if (c.op === 'empty' || c.op === 'not-empty') {
        if (v !== undefined) throw fail('takes no value');
      } else throw fail('takes contains, empty or not-empty');
      return;
    case 'name':
      if (c.op !== 'contains' && c.op !== 'eq') throw fail('takes contains or eq');
      if (typeof v !== 'string' || v.trim() === '') throw fail('value must be text');
      return;
    case 'dueDate':
      if (!['empty', 'not-empty', 'past'].includes(c.op)) throw fail('takes empty, not-empty or past');
      if (v !== undefined) throw fail('takes no value');
      return;
    case 'checklist':
      if (c.op !== 'eq' || typeof v !== 'boolean') throw fail('takes eq with true (every subtask checked) or false');
      return;
  }
}

interface IdUse {
  path: string;
  ids: number[];
}

/**
 * Every id of `uses` must be among those `found` answers for them all (one query); the first that is
 * not is a 400 on its field, said by `isNot` ("is not a column of this project").
 */
async function requireKnown(db: Queryable, uses: IdUse[], found: (ids: SQL) => SQL, isNot: (id: number) => string): Promise<void> {
  const all = [...new Set(uses.flatMap((u) => u.ids))];
  if (all.length === 0) return;
  const rows = await queryRows<{ id: number }>(db, found(idArray(all)));
  const ok = new Set(rows.map((r) => Number(r.id)));
  for (const use of uses) {
    const bad = use.ids.find((id) => !ok.has(id));
    if (bad !== undefined) throw invalid(use.path, isNot(bad));
  }
}

const requireProjectStages = (db: Queryable, projectId: number, uses: IdUse[]) =>
  requireKnown(db, uses, (ids) => sql`select id from stages where id = any(${ids}) and project_id = ${projectId}`, (id) => `stage ${id} is not a column of this project`);

const requireLabels = (db: Queryable, actor: Actor, uses: IdUse[]) =>
  requireKnown(db, uses, (ids) => sql`select id from labels where id = any(${ids}) and organization_id = ${actor.organizationId}`, (id) => `label ${id} is not a label of the organization`);

const requireMembers = (db: Queryable, actor: Actor, use: IdUse) =>
  requireKnown(
    db,
    [use],
    (ids) => sql`select user_id as id from organization_members where organization_id = ${actor.organizationId}
                   and user_id = any(${ids}) and active and deleted_at is null`,
    (id) => `user ${id} is not a member of the organization`,
  );

/** A refusal of the creator's own rights, said as a 400 about the field (the rule is what is wrong). */
async function asField<T>(path: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError && err.status !== 500) throw invalid(path, err.errors?.[0]?.message ?? err.message);
    throw err;
  }
}

export async function checkRule(db: Queryable, actor: Actor, projectId: number, rule: RuleSpec): Promise<CheckedRule> {
  const { trigger, conditions, actions } = rule;
  checkTrigger(trigger);
  const scheduled = trigger.type === 'schedule';
  const nextRunAt = scheduled ? await nextOccurrence(trigger) : null;
  if (scheduled && conditions.length > 0) throw invalid('/conditions', 'a schedule trigger has no task to test');
  conditions.forEach((c, i) => checkCondition(c, `/conditions/${i}`));
  actions.forEach((a, i) => {
    if (scheduled && !TASKLESS.has(a.type)) throw invalid(`/actions/${i}/type`, `${a.type} needs a task; a schedule trigger's actions are create-task, notify and call-webhook`);
  });

  const stageUses: IdUse[] = [];
  if (trigger.stageId !== undefined) stageUses.push({ path: '/trigger/stageId', ids: [trigger.stageId] });
  conditions.forEach((c, i) => {
    if (c.field === 'stage') stageUses.push({ path: `/conditions/${i}/value`, ids: Array.isArray(c.value) ? c.value : [c.value as number] });
  });
  await requireProjectStages(db, projectId, stageUses);

  const labelUses: IdUse[] = [];
  if (trigger.labelId !== undefined) labelUses.push({ path: '/trigger/labelId', ids: [trigger.labelId] });
  conditions.forEach((c, i) => {
    if (c.field === 'labels' && isId(c.value)) labelUses.push({ path: `/conditions/${i}/value`, ids: [c.value] });
  });
  const targetStages: number[] = [];
  for (const [i, a] of actions.entries()) {
    const at = `/actions/${i}/params`;
    switch (a.type) {
      case 'add-labels':
      case 'remove-labels':
        labelUses.push({ path: `${at}/labelIds`, ids: a.params.labelIds });
        break;
      case 'set-assignees':
      case 'add-assignees':
      case 'add-members':
        await asField(`${at}/userIds`, () => requireAssignable(db, actor, projectId, a.params.userIds, 'userIds'));
        break;
      case 'notify':
        await requireMembers(db, actor, { path: `${at}/userIds`, ids: a.params.userIds });
        break;
      case 'move-to-stage':
      case 'create-task': {
        const column = await asField(`${at}/stageId`, () => authorizeColumn(db, actor, a.params.stageId, a.type === 'create-task' ? 'create' : 'move'));
        targetStages.push(a.params.stageId);
        if (a.type === 'create-task') {
          if (a.params.labelIds?.length) labelUses.push({ path: `${at}/labelIds`, ids: a.params.labelIds });
          const assignees = a.params.assigneeIds ?? [];
          await asField(`${at}/assigneeIds`, () => requireAssignable(db, actor, column.projectId, assignees, 'assigneeIds'));
        }
        break;
      }
      case 'call-webhook': {
        const [hook] = await queryRows<{ spaceId: number | null; projectSpaceId: number | null }>(
          db,
          sql`select w.space_id as "spaceId", p.space_id as "projectSpaceId" from webhooks w left join projects p on p.id = w.project_id
              where w.id = ${a.params.webhookId} and w.organization_id = ${actor.organizationId}`,
        );
        if (!hook) throw invalid(`${at}/webhookId`, `webhook ${a.params.webhookId} is not a webhook of the organization`);
        const space = hook.projectSpaceId ?? hook.spaceId;
        await asField(`${at}/webhookId`, () => authorizeWebhookScope(db, actor, space === null ? null : Number(space)));
        break;
      }
      default:
        break;
    }
  }
  await requireLabels(db, actor, labelUses);
  if (trigger.userId !== undefined) await requireMembers(db, actor, { path: '/trigger/userId', ids: [trigger.userId] });

  return {
    stageIds: [...new Set([...stageUses.flatMap((u) => u.ids), ...targetStages])],
    nextRunAt,
  };
}
