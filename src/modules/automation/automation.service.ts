import { sql } from 'drizzle-orm';
import { idArray, queryRows, type Queryable } from '../../db/client.js';
import type { Ctx } from '../../platform/context.js';
import { notFound } from '../../platform/errors.js';
import { emit } from '../../platform/events.js';
import { compact, placeAt, type OrderedScope } from '../../platform/ordering.js';
import { authorizeRules, type ProjectScope } from './automation.policy.js';
import { presentRule, presentRun, RULE_COLUMNS, RUN_COLUMNS, type RuleRow, type RunRow } from './automation.presenter.js';
import type { AutomationRuleDto, AutomationRunDto, CreateRuleInput, UpdateRuleInput } from './automation.schemas.js';
import { checkRule } from './automation.validate.js';

const columns = sql.raw(RULE_COLUMNS);
/** A project's rules, in the order they run (dense 0..n-1). */
const rulesOf = (projectId: number): OrderedScope => ({ table: 'automation_rules', key: 'id', where: sql`project_id = ${projectId}` });

/** The project's rules in the order they run; `stageId` keeps those that use the column. */
export async function listRules(ctx: Ctx, projectId: number, stageId?: number): Promise<AutomationRuleDto[]> {
  await authorizeRules(ctx.db, ctx.actor, projectId, 'read');
  const rows = await queryRows<RuleRow>(
    ctx.db,
    sql`select ${columns} from automation_rules where project_id = ${projectId} and organization_id = ${ctx.actor.organizationId}
          ${stageId === undefined ? sql`` : sql`and stage_ids @> array[${stageId}]::bigint[]`}
        order by "order", id`,
  );
  return rows.map(presentRule);
}

function emitRule(ctx: Ctx, scope: ProjectScope, type: 'automation.rule.created' | 'automation.rule.updated' | 'automation.rule.deleted', payload: unknown): void {
  emit(ctx, { type, projectId: scope.projectId, spaceId: scope.spaceId, payload });
}

export async function createRule(ctx: Ctx, projectId: number, input: CreateRuleInput): Promise<AutomationRuleDto> {
  const { db, actor } = ctx;
  const scope = await authorizeRules(db, actor, projectId, 'write');
  const conditions = input.conditions ?? [];
  const checked = await checkRule(db, actor, projectId, { trigger: input.trigger, conditions, actions: input.actions });
  const [row] = await queryRows<RuleRow>(
    db,
    sql`insert into automation_rules (organization_id, project_id, name, enabled, "order", trigger_type, trigger, conditions, actions,
          stage_ids, next_run_at, creator_id)
        values (${actor.organizationId}, ${projectId}, ${input.name.trim()}, ${input.enabled ?? true},
          0, ${input.trigger.type}, ${JSON.stringify(input.trigger)}::jsonb,
          ${JSON.stringify(conditions)}::jsonb, ${JSON.stringify(input.actions)}::jsonb, ${idArray(checked.stageIds)},
          ${checked.nextRunAt?.toISOString() ?? null}, ${actor.userId})
        returning ${columns}`,
  );
  // Last in the project's order, placed under the scope's lock so concurrent creates do not share a position.
  const rule = presentRule({ ...row!, order: await placeAt(db, rulesOf(projectId), Number(row!.id), undefined) });
  emitRule(ctx, scope, 'automation.rule.created', rule);
  return rule;
}

async function lockRule(ctx: Ctx, projectId: number, ruleId: number): Promise<RuleRow> {
  const [row] = await queryRows<RuleRow>(
    ctx.db,
    sql`select ${columns} from automation_rules where id = ${ruleId} and project_id = ${projectId} and organization_id = ${ctx.actor.organizationId}
        for update`,
  );
  if (!row) throw notFound('automation rule');
  return row;
}

/**
 * Changes a rule. A change of its trigger, conditions or actions, or switching it on, checks the
 * whole rule again as its editor would use it now (a column or label named long ago may be gone),
 * so enabling a rule that cannot run is refused up front.
 */
export async function updateRule(ctx: Ctx, projectId: number, ruleId: number, input: UpdateRuleInput): Promise<AutomationRuleDto> {
  const { db, actor } = ctx;
  const scope = await authorizeRules(db, actor, projectId, 'write');
  const current = await lockRule(ctx, projectId, ruleId);
  const trigger = input.trigger ?? current.trigger;
  const conditions = input.conditions ?? current.conditions;
  const actions = input.actions ?? current.actions;
  const enabled = input.enabled ?? current.enabled;
  const reshaped = input.trigger !== undefined || input.conditions !== undefined || input.actions !== undefined;
  // Checked again when its shape changes or it is switched on. Renaming, reordering or switching off
  // a rule that can no longer run (its label deleted) stays possible.
  const checked = reshaped || (enabled && !current.enabled) ? await checkRule(db, actor, projectId, { trigger, conditions, actions }) : null;
  // A schedule keeps its next occurrence unless its expression changed or it comes back on.
  const reschedule = checked !== null && (input.trigger !== undefined || (enabled && !current.enabled) || trigger.type !== 'schedule');
  const nextRunAt = reschedule ? (checked.nextRunAt?.toISOString() ?? null) : current.nextRunAt;
  if (input.order !== undefined) await placeAt(db, rulesOf(projectId), ruleId, input.order);
  const [row] = await queryRows<RuleRow>(
    db,
    sql`update automation_rules set name = ${input.name?.trim() ?? current.name}, enabled = ${enabled}, trigger_type = ${trigger.type},
          trigger = ${JSON.stringify(trigger)}::jsonb, conditions = ${JSON.stringify(conditions)}::jsonb, actions = ${JSON.stringify(actions)}::jsonb,
          stage_ids = ${checked ? idArray(checked.stageIds) : sql`stage_ids`}, next_run_at = ${nextRunAt === null ? null : new Date(nextRunAt).toISOString()},
          last_error = case when ${reshaped} then null else last_error end,
          updated_at = now()
        where id = ${ruleId}
        returning ${columns}`,
  );
  const rule = presentRule(row!);
  emitRule(ctx, scope, 'automation.rule.updated', rule);
  return rule;
}

/** Deletes a rule; its pending runs go with it, so it stops at once. */
export async function deleteRule(ctx: Ctx, projectId: number, ruleId: number): Promise<void> {
  const scope = await authorizeRules(ctx.db, ctx.actor, projectId, 'write');
  await lockRule(ctx, projectId, ruleId);
  await ctx.db.execute(sql`delete from automation_rules where id = ${ruleId}`);
  await compact(ctx.db, rulesOf(projectId));
  emitRule(ctx, scope, 'automation.rule.deleted', { id: ruleId });
}

/** The rule's last runs, newest first. */
export async function listRuns(ctx: Ctx, projectId: number, ruleId: number, limit: number): Promise<AutomationRunDto[]> {
  await authorizeRules(ctx.db, ctx.actor, projectId, 'read');
  const [rule] = await queryRows<{ id: number }>(
    ctx.db,
    sql`select id from automation_rules where id = ${ruleId} and project_id = ${projectId} and organization_id = ${ctx.actor.organizationId}`,
  );
  if (!rule) throw notFound('automation rule');
  const rows = await queryRows<RunRow>(
    ctx.db,
    sql`select ${sql.raw(RUN_COLUMNS)} from automation_runs where rule_id = ${ruleId} order by id desc limit ${limit}`,
  );
  return rows.map(presentRun);
}

/** Stage.hasAutomatization: an enabled rule (of any project) names the column. */
export async function stageHasAutomation(db: Queryable, stageId: number): Promise<boolean> {
  const rows = await queryRows<{ one: number }>(db, sql`select 1 as one from automation_rules where enabled and stage_ids @> array[${stageId}]::bigint[] limit 1`);
  return rows.length > 0;
}
