import { Type, type Static } from 'typebox';
import { DateTime, Id, Nullable } from '../../platform/schemas.js';

/**
 * routes.md "Personal messenger integration" and "Projects" rows 46–49, with the MessengerIntegration
 * and ProjectMessengerIntegration resources. The messenger is Telegram (TELEGRAM_BOT_TOKEN).
 */

const Status = Type.Unsafe<'pending' | 'active' | 'inactive'>({
  type: 'string',
  enum: ['pending', 'active', 'inactive'],
  description: 'pending: waiting for the code in the messenger; active: bound to a chat; inactive: the bot was blocked or removed there (added)',
});
// Telegram ids go beyond 32 bits and are negative for groups.
const ChatId = Type.Integer({ minimum: -9007199254740991, maximum: 9007199254740991 });

export const MessengerIntegrationSchema = Type.Object(
  {
    status: Status,
    messengerUserId: Nullable(ChatId),
    username: Nullable(Type.String()),
    chatId: Nullable(ChatId),
    notify: Type.Boolean({ description: 'notifications are also sent to the chat' }),
    code: Nullable(Type.String({ description: 'single-use code, while pending' })),
    deepLink: Nullable(Type.String({ description: 'https://t.me/<bot>?start=<code>, while pending' })),
    codeExpiresAt: Nullable(DateTime()),
  },
  { $id: 'MessengerIntegration' },
);
export type MessengerIntegrationDto = Static<typeof MessengerIntegrationSchema>;

/** The project event types the bot can tell a group about. */
export const PROJECT_EVENT_TYPES = ['task.created', 'task.updated', 'task.moved', 'task.archived', 'task.restored', 'task.deleted', 'message.created'] as const;
export type ProjectEventType = (typeof PROJECT_EVENT_TYPES)[number];

const Events = Type.Array(
  Type.Unsafe<ProjectEventType>({ type: 'string', enum: [...PROJECT_EVENT_TYPES] }),
  { minItems: 1, maxItems: PROJECT_EVENT_TYPES.length, uniqueItems: true, description: 'the project events posted to the group' },
);

export const ProjectMessengerIntegrationSchema = Type.Object(
  {
    projectId: Type.Integer(),
    status: Status,
    chatId: Nullable(ChatId),
    chatTitle: Nullable(Type.String()),
    events: Type.Array(Type.String()),
    enabled: Type.Boolean(),
    code: Nullable(Type.String({ description: 'single-use code, while pending' })),
    deepLink: Nullable(Type.String({ description: 'https://t.me/<bot>?startgroup=<code>, while pending' })),
    codeExpiresAt: Nullable(DateTime('when the code stops working (added)')),
    creatorId: Nullable(Type.Integer()),
  },
  { $id: 'ProjectMessengerIntegration' },
);
export type ProjectMessengerIntegrationDto = Static<typeof ProjectMessengerIntegrationSchema>;

export const CreateBody = Type.Object({ notify: Type.Optional(Type.Boolean({ default: true })) });
export const ProjectParams = Type.Object({ projectId: Id('project id') });
export const CreateProjectBody = Type.Object({ events: Events });
export const UpdateProjectBody = Type.Object({ events: Type.Optional(Events), enabled: Type.Optional(Type.Boolean()) }, { minProperties: 1 });

// Optional in the schema so that a missing secret is a 401, like a wrong one.
export const BotLoginHeaders = Type.Object({ 'x-bot-secret': Type.Optional(Type.String({ maxLength: 256, description: 'MESSENGER_BOT_SECRET' })) });
export const BotLoginBody = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 64 }),
  chatId: ChatId,
  messengerUserId: ChatId,
  username: Nullable(Type.String({ maxLength: 64 })),
  chatTitle: Type.Optional(Type.String({ maxLength: 256, description: 'the group’s title, for a project code (added)' })),
});
export const BotLoginResult = Type.Union([MessengerIntegrationSchema, ProjectMessengerIntegrationSchema]);

export type CreateProjectInput = Static<typeof CreateProjectBody>;
export type UpdateProjectInput = Static<typeof UpdateProjectBody>;
export type BotLoginInput = Static<typeof BotLoginBody>;
