import { Type, type TSchema } from 'typebox';
import type { EventType } from '../../platform/event-types.js';
import { LabelSchema } from '../labels/labels.schemas.js';
import { TabSchema } from '../projects/tabs/tabs.schemas.js';
import { MemberSchema, OrganizationSchema } from '../organizations/organizations.schemas.js';
import { PageFullSchema, PageSchema } from '../docs/docs.schemas.js';
import { ProjectDocumentationSchema } from '../project-docs/project-docs.schemas.js';
import { ProjectFullSchema, ProjectSchema } from '../projects/projects.schemas.js';
import { PassedUserSchema, ReglamentCreatedSchema, ReglamentFullSchema } from '../reglaments/reglaments.schemas.js';
import { QuestionSchema } from '../reglaments/questions/questions.schemas.js';
import { ReglamentVersionSchema } from '../reglaments/versions/versions.schemas.js';
import { SpaceMemberSchema } from '../spaces/members/members.schemas.js';
import { SpaceFullSchema, SpaceSchema } from '../spaces/spaces.schemas.js';
import { StageSchema } from '../stages/stages.schemas.js';
import { TableColumnSchema, TableRowSchema } from '../tables/tables.schemas.js';
import { HistorySchema } from '../tasks/history/history.schemas.js';
import { MessageSchema } from '../tasks/messages/messages.schemas.js';
import { SortBody, SortResult } from '../tasks/sorting/sorting.schemas.js';
import { TaskSchema } from '../tasks/tasks.schemas.js';
import { TimeRecordSchema, TimerSchema } from '../time/time.schemas.js';
import { NotificationSchema } from '../notifications/notifications.schemas.js';
import { WebhookSchema } from '../webhooks/webhooks.schemas.js';
import { IndexingJobSchema } from '../ai/ai.schemas.js';
import { PortabilityJobSchema } from '../portability/portability.schemas.js';
import { ImportJobSchema } from '../imports/imports.schemas.js';
import { MessengerIntegrationSchema, ProjectMessengerIntegrationSchema } from '../messenger/messenger.schemas.js';
import { CloudDriveIntegrationSchema } from '../cloud-drive/cloud-drive.schemas.js';
import { AutomationRuleSchema, RuleFailedSchema, RuleTriggeredSchema } from '../automation/automation.schemas.js';

let schemas: Record<EventType, TSchema> | undefined;

/**
 * The payload of every event type (routes.md "Real-time events"): the resource as its read route
 * answers it, `{id}` for deletes. Fields the spec calls "caller's" (favorite, role, order, collapsed,
 * passedByMe…) are those of the user who acted, as the route answered that user.
 *
 * Built on first use, not at start: at run time only the OpenAPI document's webhooks need them, and
 * the document is generated on its first request (issue 42).
 */
export const eventPayloadSchemas = (): Record<EventType, TSchema> => (schemas ??= build());

function build(): Record<EventType, TSchema> {
  // A personal integration goes to its user alone; a project chat's to the project's readers.
  const MessengerChange = Type.Union([MessengerIntegrationSchema, ProjectMessengerIntegrationSchema, CloudDriveIntegrationSchema], {
    description: 'a messenger chat bound (connected) or unbound (disconnected): a personal integration, or a project chat; or the user’s cloud drive connected or disconnected',
  });

  const Deleted = (what: string) => Type.Object({ id: Type.Integer({ description: `id of the deleted ${what}` }) });

  const TaskChange = Type.Object({
    task: TaskSchema,
    history: HistorySchema,
    changes: Type.Array(Type.String(), { description: 'the Task fields the change touched (empty for created and duplicated)' }),
  });

  const TaskLeft = Type.Object(
    {
      id: Type.Integer({ description: 'the task' }),
      stageId: Type.Integer({ description: 'the column it left; the envelope names that column\'s project and space' }),
    },
    { description: 'sent to the board a task left for another project, whose readers may not see where it went (task.moved tells the new board)' },
  );

  const OrderedStages = Type.Object({
    projectId: Type.Integer(),
    stages: Type.Array(StageSchema, { description: "every column of the project in its new order" }),
  });

  const SortedStage = Type.Object({
    stageId: Type.Integer(),
    projectId: Type.Integer(),
    by: SortBody.properties.by,
    direction: Type.Union([Type.Literal('asc'), Type.Literal('desc')]),
    tasks: SortResult,
  });

  const ProjectDocumentationChange = Type.Object(
    { id: Type.Integer({ description: 'the project' }), documentation: ProjectDocumentationSchema },
    { description: "the project's documentation changed (content, images or files)" },
  );

  const TableChange = Type.Object(
    {
      projectId: Type.Integer(),
      change: Type.Union(
        ['column.created', 'column.updated', 'column.deleted', 'row.created', 'row.updated', 'row.deleted'].map((c) => Type.Literal(c)),
      ),
      id: Type.Integer({ description: 'the column or row changed' }),
      column: Type.Optional(TableColumnSchema),
      row: Type.Optional(TableRowSchema),
    },
    { description: 'one column or row of the project table; a column whose type or options changed may have emptied cells: reload the rows' },
  );

  const MemberGone = Type.Object({ id: Type.Integer({ description: 'the membership' }), userId: Type.Integer() });

  const QuestionForReaders = Type.Object(QuestionSchema.properties, {
    $id: 'ReglamentQuestionForReaders',
    description: 'the question with its answers; isRight is always null here, whoever receives it',
  });

  // Modules still being written own these forms; until they publish schemas, only `id` is promised.
  return {
    'task.created': TaskChange,
    'task.updated': TaskChange,
    'task.moved': TaskChange,
    'task.left': TaskLeft,
    'task.archived': TaskChange,
    'task.restored': TaskChange,
    'task.deleted': Deleted('task'),
    'task.duplicated': TaskChange,

    'message.created': MessageSchema,
    'message.updated': MessageSchema,
    'message.deleted': Deleted('message'),
    'message.pinned': MessageSchema,
    'message.reaction.added': MessageSchema,
    'message.reaction.removed': MessageSchema,

    'time-record.created': TimeRecordSchema,
    'time-record.updated': TimeRecordSchema,
    'time-record.deleted': Deleted('time record'),
    'timer.started': TimerSchema,
    'timer.stopped': TimerSchema,

    'stage.created': StageSchema,
    'stage.updated': StageSchema,
    'stage.moved': OrderedStages,
    'stage.sorted': SortedStage,
    'stage.deleted': Deleted('column'),

    'project.created': ProjectFullSchema,
    'project.updated': Type.Union([ProjectSchema, ProjectDocumentationChange]),
    'project.deleted': Deleted('project (moved to the trash)'),
    'project.restored': ProjectFullSchema,
    'project.linked': ProjectSchema,
    'project.unlinked': Type.Object({ id: Type.Integer({ description: 'the project' }), spaceId: Type.Integer({ description: 'the space it left' }) }),
    'tab.created': TabSchema,
    'tab.updated': TabSchema,
    'tab.deleted': Deleted('tab'),
    'table.updated': TableChange,

    'space.created': SpaceFullSchema,
    'space.updated': Type.Union([SpaceSchema, SpaceFullSchema], { description: 'Space(full) when its project, reglament or documentation groups changed' }),
    'space.archived': SpaceSchema,
    'space.restored': SpaceSchema,
    'space.deleted': Deleted('space'),
    'space.member.added': SpaceMemberSchema,
    'space.member.updated': SpaceMemberSchema,
    'space.member.removed': MemberGone,

    'reglament.created': ReglamentCreatedSchema,
    'reglament.updated': ReglamentFullSchema,
    'reglament.published': ReglamentFullSchema,
    'reglament.deleted': Deleted('reglament'),
    'reglament.passed': PassedUserSchema,
    'reglament.version.created': ReglamentVersionSchema,
    'reglament.question.created': QuestionForReaders,
    'reglament.question.updated': QuestionForReaders,
    'reglament.question.deleted': Type.Object({ id: Type.Integer({ description: 'the deleted question' }), reglamentId: Type.Integer() }),

    'page.created': PageFullSchema,
    'page.updated': Type.Union([PageFullSchema, PageSchema], { description: 'Page(full) when its content or files changed' }),
    'page.moved': PageSchema,
    'page.archived': PageSchema,
    'page.restored': PageSchema,
    'page.deleted': Deleted('page (with its subtree)'),
    'page.published': PageSchema,
    'page.unpublished': PageSchema,

    'notification.created': NotificationSchema,
    'notification.updated': Type.Union([NotificationSchema, Type.Object({ updated: Type.Integer({ description: 'more changed at once than announced one by one: reload' }) })]),
    'notification.deleted': Type.Union([Deleted('notification'), Type.Object({ deleted: Type.Integer({ description: 'more deleted at once than announced one by one: reload' }) })]),

    'organization.updated': OrganizationSchema,
    'organization.member.created': MemberSchema,
    'organization.member.updated': MemberSchema,
    'organization.member.deleted': MemberGone,

    'label.created': LabelSchema,
    'label.updated': LabelSchema,
    'label.deleted': Deleted('label'),

    'webhook.ping': Type.Object({ webhookId: Type.Integer(), url: Type.String() }),
    'webhook.disabled': WebhookSchema,
    'automation.rule.created': AutomationRuleSchema,
    'automation.rule.updated': AutomationRuleSchema,
    'automation.rule.deleted': Deleted('automation rule'),
    'automation.rule.failed': RuleFailedSchema,
    'automation.rule.triggered': RuleTriggeredSchema,

    'ai.indexing.progress': IndexingJobSchema,
    'ai.indexing.finished': IndexingJobSchema,
    // To the user who started the import only.
    'import.progress': ImportJobSchema,
    'import.finished': ImportJobSchema,
    // To the owner or admin who started the export or the organization import only.
    'export.progress': PortabilityJobSchema,
    'export.finished': PortabilityJobSchema,
    'organization.import.progress': PortabilityJobSchema,
    'organization.import.finished': PortabilityJobSchema,

    'integration.connected': MessengerChange,
    'integration.disconnected': MessengerChange,
  };
}
