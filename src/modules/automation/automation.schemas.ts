import { Type, type Static, type TSchema } from 'typebox';
import { DateTime, Id, IdParams, Nullable } from '../../platform/schemas.js';

/**
 * routes.md "Automation" and the AutomationRule resource: trigger → conditions → actions, each a
 * tagged object validated strictly (unknown fields refused), so a rule that saves is one the
 * engine can run. Ids are checked against the organization at save time (automation.validate.ts).
 */

const Status = Type.Integer({ minimum: 0, maximum: 3, description: '0 in work, 1 done, 2 rejected, 3 needs attention' });
const Importance = Type.Integer({ minimum: -1, maximum: 3, description: '-1 not set, 0 low, 1 medium, 2 high, 3 critical' });
const Ids = (description: string) => Type.Array(Id(), { minItems: 1, maxItems: 50, uniqueItems: true, description });
const Text = (max: number, description: string) => Type.String({ minLength: 1, maxLength: max, pattern: '\\S', description });

export const TRIGGER_TYPES = {
  'task.created': 'a task is created in the project (in the column stageId, when given)',
  'entered-stage': 'a task enters the column stageId (moved in by anyone or anything)',
  'left-stage': 'a task leaves the column stageId',
  'status-changed': 'the status changes (to `status`, when given)',
  'assignee-added': 'an assignee is added (the user userId, when given)',
  'label-added': 'a label is added (the label labelId, when given)',
  'checklist-completed': 'a change of the checklist leaves every subtask checked',
  'due-date-reached': 'the due moment of a task passes, whatever its status',
  overdue: 'the due moment of a task passes while it is in work or needs attention',
  schedule: 'each occurrence of `cron` in `timezone` (recurring tasks); with no task, its actions are create-task, notify and call-webhook',
} as const;
export type TriggerType = keyof typeof TRIGGER_TYPES;

// One closed object rather than a union: the body validator strips unknown properties, and a union
// of closed objects would strip a later branch's fields while trying an earlier one. Which fields
// each type needs is checked by automation.validate.ts.
export const TriggerSchema = Type.Object(
  {
    type: Type.Unsafe<TriggerType>({
      type: 'string',
      enum: Object.keys(TRIGGER_TYPES),
      description: Object.entries(TRIGGER_TYPES).map(([t, d]) => `${t}: ${d}`).join('; '),
    }),
    stageId: Type.Optional(Id('a column of the project: required by entered-stage and left-stage, optional for task.created')),
    status: Type.Optional(Status),
    userId: Type.Optional(Id()),
    labelId: Type.Optional(Id()),
    cron: Type.Optional(Type.String({ minLength: 9, maxLength: 100, description: 'schedule: cron expression, 5 fields (minutes) or 6 (seconds first)' })),
    timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'schedule: IANA time zone, e.g. Europe/Berlin' })),
  },
  { additionalProperties: false, description: 'what starts the rule' },
);
export type Trigger = Static<typeof TriggerSchema>;

export const CONDITION_FIELDS = ['stage', 'status', 'importance', 'labels', 'assignees', 'members', 'name', 'dueDate', 'checklist'] as const;
export const CONDITION_OPS = ['eq', 'neq', 'in', 'contains', 'empty', 'not-empty', 'past'] as const;
export const ConditionSchema = Type.Object(
  {
    field: Type.Unsafe<(typeof CONDITION_FIELDS)[number]>({ type: 'string', enum: [...CONDITION_FIELDS], description: 'a task field' }),
    op: Type.Unsafe<(typeof CONDITION_OPS)[number]>({
      type: 'string',
      enum: [...CONDITION_OPS],
      description:
        'eq/neq: stage, status, importance (a number); in: stage, status, importance (a list); contains: labels, assignees, members (an id), name (text, case-insensitive); empty/not-empty: labels, assignees, members, dueDate; past: dueDate; eq with true/false: checklist (all checked)',
    }),
    value: Type.Optional(Type.Union([Type.Integer(), Type.Boolean(), Type.String({ maxLength: 500 }), Type.Array(Type.Integer(), { maxItems: 50 })])),
  },
  { additionalProperties: false, description: 'every condition must hold on the task as it is when the rule runs' },
);
export type Condition = Static<typeof ConditionSchema>;

const act = <T extends string, P extends Record<string, TSchema>>(type: T, params: P, description: string) =>
  Type.Object({ type: Type.Literal(type), params: Type.Object(params, { additionalProperties: false }) }, { additionalProperties: false, description });

export const ActionSchema = Type.Union(
  [
    act('set-status', { status: Status }, 'set the status'),
    act('set-assignees', { userIds: Type.Array(Id(), { maxItems: 50, uniqueItems: true }) }, 'replace the assignees'),
    act('add-assignees', { userIds: Ids('users to assign') }, 'add assignees'),
    act('add-members', { userIds: Ids('users to add as members') }, 'add members'),
    act('add-labels', { labelIds: Ids('labels of the organization') }, 'add labels'),
    act('remove-labels', { labelIds: Ids('labels of the organization') }, 'remove labels'),
    act('set-importance', { importance: Importance }, 'set the importance'),
    act('set-due-date', { days: Type.Integer({ minimum: -3650, maximum: 3650, description: 'due date = the run day (UTC) + days' }) }, 'set the due date relative to the run'),
    act('move-to-stage', { stageId: Id('a column of this or another project') }, 'move the task to a column'),
    act('archive', {}, 'archive the task'),
    act('add-comment', { text: Text(5000, 'message text; posted with no author') }, 'post a message in the task chat'),
    act(
      'create-task',
      {
        name: Text(500, 'task name'),
        stageId: Id('the column to create it in'),
        description: Type.Optional(Type.String({ maxLength: 20000 })),
        assigneeIds: Type.Optional(Type.Array(Id(), { maxItems: 50, uniqueItems: true })),
        labelIds: Type.Optional(Type.Array(Id(), { maxItems: 50, uniqueItems: true })),
        dueInDays: Type.Optional(Type.Integer({ minimum: 0, maximum: 3650, description: 'due date = the run day (UTC) + days' })),
      },
      'create a task (what a recurring task needs)',
    ),
    act('notify', { userIds: Ids('members of the organization'), text: Text(1000, 'notification text') }, 'send a notification'),
    act('call-webhook', { webhookId: Id('a webhook the rule creator manages') }, 'send automation.rule.triggered to the webhook through the delivery queue (signed, retried, logged)'),
  ],
  { description: 'what the rule does, in order; all or none' },
);
export type Action = Static<typeof ActionSchema>;
export type ActionType = Action['type'];

export const AutomationRuleSchema = Type.Object(
  {
    id: Type.Integer(),
    projectId: Type.Integer(),
    name: Type.String(),
    enabled: Type.Boolean(),
    order: Type.Integer(),
    trigger: TriggerSchema,
    conditions: Type.Array(ConditionSchema),
    actions: Type.Array(ActionSchema),
    lastRunAt: Nullable(DateTime()),
    lastError: Nullable(Type.String({ description: 'why the last run failed; null after a success' })),
    nextRunAt: Nullable(DateTime('the next occurrence of a schedule trigger')),
    creatorId: Nullable(Type.Integer()),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'AutomationRule' },
);
export type AutomationRuleDto = Static<typeof AutomationRuleSchema>;

export const AutomationRunSchema = Type.Object(
  {
    id: Type.Integer(),
    ruleId: Type.Integer(),
    cause: Type.String({ description: 'e:<event id>, s:<schedule occurrence> or d:<task id>:<due moment>' }),
    eventId: Nullable(Type.Integer({ description: 'the change-log event that triggered it' })),
    taskId: Nullable(Type.Integer()),
    depth: Type.Integer({ description: '1 for a change by a person or a schedule, +1 per rule in between (at most 3)' }),
    status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('skipped'), Type.Literal('failed')]),
    error: Nullable(Type.String({ description: 'failed: what went wrong; skipped: why nothing was done' })),
    durationMs: Nullable(Type.Integer()),
    createdAt: DateTime(),
    finishedAt: Nullable(DateTime()),
  },
  { $id: 'AutomationRun' },
);
export type AutomationRunDto = Static<typeof AutomationRunSchema>;

const RuleName = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'rule name' });
const Conditions = Type.Array(ConditionSchema, { maxItems: 20 });
const Actions = Type.Array(ActionSchema, { minItems: 1, maxItems: 20 });

export const CreateRuleBody = Type.Object(
  { name: RuleName, trigger: TriggerSchema, conditions: Type.Optional(Conditions), actions: Actions, enabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export type CreateRuleInput = Static<typeof CreateRuleBody>;

export const UpdateRuleBody = Type.Object(
  {
    name: Type.Optional(RuleName),
    trigger: Type.Optional(TriggerSchema),
    conditions: Type.Optional(Conditions),
    actions: Type.Optional(Actions),
    enabled: Type.Optional(Type.Boolean()),
    order: Type.Optional(Type.Integer({ minimum: 0, maximum: 100000, description: 'position among the project\'s rules, 0-based' })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateRuleInput = Static<typeof UpdateRuleBody>;

export const ProjectParams = IdParams('projectId');
export const RuleParams = IdParams('projectId', 'ruleId');
export const ListRulesQuery = Type.Object({ stageId: Type.Optional(Id('only rules that use this column')) });
export const RunsQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })) });

/** automation.rule.failed and automation.rule.triggered payloads. */
export const RuleFailedSchema = Type.Object({
  ruleId: Type.Integer(),
  ruleName: Type.String(),
  runId: Nullable(Type.Integer()),
  eventId: Nullable(Type.Integer()),
  taskId: Nullable(Type.Integer()),
  error: Type.String(),
});
export const RuleTriggeredSchema = Type.Object({
  ruleId: Type.Integer(),
  ruleName: Type.String(),
  runId: Type.Integer(),
  cause: Type.String(),
  eventId: Nullable(Type.Integer()),
  taskId: Nullable(Type.Integer()),
  webhookIds: Type.Array(Type.Integer()),
});
