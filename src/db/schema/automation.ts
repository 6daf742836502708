import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, smallint, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, ts, updatedAt } from './columns.js';
import { organizations } from './organizations.js';
import { projects } from './projects.js';
import { users } from './users.js';

/**
 * A project's automation rule: trigger → conditions → actions (routes.md "Automation"), kept as the
 * validated JSON the API takes. `stage_ids` lists every column the rule names (for
 * Stage.hasAutomatization and `?stageId`), `next_run_at` the next occurrence of a schedule trigger.
 */
export const automationRules = pgTable(
  'automation_rules',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    projectId: ref('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    order: integer('order').notNull().default(0),
    triggerType: text('trigger_type').notNull(),
    trigger: jsonb('trigger').notNull(),
    conditions: jsonb('conditions').notNull().default(sql`'[]'::jsonb`),
    actions: jsonb('actions').notNull(),
    stageIds: ref('stage_ids').array().notNull().default(sql`'{}'::bigint[]`),
    nextRunAt: ts('next_run_at'),
    lastRunAt: ts('last_run_at'),
    lastError: text('last_error'),
    creatorId: ref('creator_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('automation_rules_project_idx').on(t.projectId, t.order).where(sql`${t.enabled}`),
    index('automation_rules_org_idx').on(t.organizationId).where(sql`${t.enabled}`),
    index('automation_rules_schedule_idx').on(t.nextRunAt).where(sql`${t.enabled} and ${t.nextRunAt} is not null`),
  ],
);

/**
 * One run of a rule for one cause: an event of the change log (`e:<eventId>`), a schedule occurrence
 * (`s:<time>`) or a task's due moment (`d:<taskId>:<due>`). The unique (rule, cause) row is what makes
 * a run happen exactly once across instances: it is queued in the transaction that committed the
 * cause, and its outcome is written in the transaction that applied the actions.
 */
export const automationRuns = pgTable(
  'automation_runs',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    ruleId: ref('rule_id').notNull().references(() => automationRules.id, { onDelete: 'cascade' }),
    cause: text('cause').notNull(),
    eventId: ref('event_id'),
    taskId: ref('task_id'),
    // 1 for a run caused by a person's change or a schedule, +1 for each rule in between.
    depth: smallint('depth').notNull().default(1),
    status: text('status', { enum: ['pending', 'succeeded', 'skipped', 'failed'] }).notNull().default('pending'),
    error: text('error'),
    durationMs: integer('duration_ms'),
    createdAt: createdAt(),
    finishedAt: ts('finished_at'),
  },
  (t) => [
    uniqueIndex('automation_runs_cause_key').on(t.ruleId, t.cause),
    index('automation_runs_pending_idx').on(t.id).where(sql`${t.status} = 'pending'`),
    index('automation_runs_rule_idx').on(t.ruleId, t.id),
    check('automation_runs_status_check', sql`${t.status} in ('pending','succeeded','skipped','failed')`),
  ],
);
