import { iso } from '../../platform/http.js';
import type { Action, AutomationRuleDto, AutomationRunDto, Condition, Trigger } from './automation.schemas.js';

type Stamp = Date | string | null;

export interface RuleRow {
  id: number;
  organizationId: number;
  projectId: number;
  name: string;
  enabled: boolean;
  order: number;
  trigger: Trigger;
  conditions: Condition[];
  actions: Action[];
  nextRunAt: Stamp;
  lastRunAt: Stamp;
  lastError: string | null;
  creatorId: number | null;
  createdAt: Stamp;
  updatedAt: Stamp;
}

export const RULE_COLUMNS = `id, organization_id as "organizationId", project_id as "projectId", name, enabled, "order", trigger, conditions, actions,
  next_run_at as "nextRunAt", last_run_at as "lastRunAt", last_error as "lastError", creator_id as "creatorId",
  created_at as "createdAt", updated_at as "updatedAt"`;

export const presentRule = (r: RuleRow): AutomationRuleDto => ({
  id: Number(r.id),
  projectId: Number(r.projectId),
  name: r.name,
  enabled: r.enabled,
  order: Number(r.order),
  trigger: r.trigger,
  conditions: r.conditions,
  actions: r.actions,
  lastRunAt: iso(r.lastRunAt),
  lastError: r.lastError,
  nextRunAt: r.enabled ? iso(r.nextRunAt) : null,
  creatorId: r.creatorId === null ? null : Number(r.creatorId),
  createdAt: iso(r.createdAt)!,
  updatedAt: iso(r.updatedAt)!,
});

export interface RunRow {
  id: number;
  ruleId: number;
  cause: string;
  eventId: number | null;
  taskId: number | null;
  depth: number;
  status: AutomationRunDto['status'];
  error: string | null;
  durationMs: number | null;
  createdAt: Stamp;
  finishedAt: Stamp;
}

export const RUN_COLUMNS = `id, rule_id as "ruleId", cause, event_id as "eventId", task_id as "taskId", depth, status, error,
  duration_ms as "durationMs", created_at as "createdAt", finished_at as "finishedAt"`;

const num = (v: number | null) => (v === null ? null : Number(v));

export const presentRun = (r: RunRow): AutomationRunDto => ({
  id: Number(r.id),
  ruleId: Number(r.ruleId),
  cause: r.cause,
  eventId: num(r.eventId),
  taskId: num(r.taskId),
  depth: Number(r.depth),
  status: r.status,
  error: r.error,
  durationMs: num(r.durationMs),
  createdAt: iso(r.createdAt)!,
  finishedAt: iso(r.finishedAt),
});
