import { Type } from 'typebox';
import { timingSafeEqual } from 'node:crypto';
import type { App } from '../../platform/types.js';
import { read, write } from '../../platform/context.js';
import { sha256 } from '../../platform/crypto.js';
import { AppError } from '../../platform/errors.js';
import * as S from './messenger.schemas.js';
import * as messenger from './messenger.service.js';
import { startMessenger } from './messenger.jobs.js';

const tags = ['Messenger integration'];
const OFF = ' Answers 409 MESSENGER_NOT_CONFIGURED while the service has no TELEGRAM_BOT_TOKEN.';

export default async function messengerRoutes(app: App): Promise<void> {
  const { bot } = startMessenger(app);
  // Every route of this module needs the bot (after validation and authentication, as any refusal).
  app.addHook('preHandler', async () => void bot.requireClient());

  app.get(
    '/integrations/messenger',
    { schema: { tags, summary: 'The caller’s messenger integration (404 none) (self)', description: OFF.trim(), response: { 200: S.MessengerIntegrationSchema } } },
    (request) => read(app, request, (ctx) => messenger.getPersonal(ctx, bot)),
  );

  app.post(
    '/integrations/messenger',
    {
      schema: {
        tags,
        summary: 'Connect the messenger: a single-use code (10 minutes) and the bot’s deep link (self)',
        description:
          'Opening the link (or sending `/start <code>` to the bot in a private chat) binds that chat: notifications then arrive there (with `notify`), and replying to one posts the reply to the task’s chat. While connected, 409: delete first to bind another chat.' + OFF,
        body: S.CreateBody,
        response: { 201: S.MessengerIntegrationSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => messenger.createPersonal(ctx, bot, request.body.notify ?? true))),
  );

  app.delete(
    '/integrations/messenger',
    { schema: { tags, summary: 'Disconnect the messenger (self)', description: OFF.trim(), response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => messenger.deletePersonal(ctx, bot));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/integrations/messenger/bot-login',
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'Redeem a code for a bot run elsewhere (public, with X-Bot-Secret)',
        description:
          'Binds the chat to the pending personal or project integration the code belongs to, as `/start <code>` does for the built-in bot. 401 for a wrong secret; 404 for an unknown, used or expired code; 409 while MESSENGER_BOT_SECRET (or the bot token) is not set.',
        security: [],
        headers: S.BotLoginHeaders,
        body: S.BotLoginBody,
        response: { 200: S.BotLoginResult },
      },
    },
    async (request) => {
      const secret = app.config.messengerBotSecret;
      if (!secret) throw new AppError('MESSENGER_NOT_CONFIGURED', 'bot-login is off: the service has no MESSENGER_BOT_SECRET');
      // Digests compared in constant time: neither the secret nor its length leaks through timing.
      const given = Buffer.from(sha256(request.headers['x-bot-secret'] ?? ''), 'hex');
      if (!timingSafeEqual(given, Buffer.from(sha256(secret), 'hex'))) throw new AppError('UNAUTHENTICATED', 'missing or wrong X-Bot-Secret');
      return messenger.botLogin(app, bot, request.body);
    },
  );

  app.get(
    '/projects/:projectId/messenger-integration',
    {
      schema: { tags, summary: 'The project’s group chat integration (404 none) (S:reader)', description: OFF.trim(), params: S.ProjectParams, response: { 200: S.ProjectMessengerIntegrationSchema } },
    },
    (request) => read(app, request, (ctx) => messenger.getProjectChat(ctx, bot, request.params.projectId)),
  );

  app.post(
    '/projects/:projectId/messenger-integration',
    {
      schema: {
        tags,
        summary: 'Post the project’s events to a group: a single-use code and the bot’s group link (S:editor)',
        description:
          'Adding the bot to a group through the link (or sending `/start@<bot> <code>` there) binds the group; the chosen events are then posted in order, after commit. While bound, 409: delete first to bind another group.' + OFF,
        params: S.ProjectParams,
        body: S.CreateProjectBody,
        response: { 201: S.ProjectMessengerIntegrationSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await write(app, request, (ctx) => messenger.createProjectChat(ctx, bot, request.params.projectId, request.body))),
  );

  app.patch(
    '/projects/:projectId/messenger-integration',
    {
      schema: { tags, summary: 'Change the posted events or switch posting off and on (S:editor)', description: OFF.trim(), params: S.ProjectParams, body: S.UpdateProjectBody, response: { 200: S.ProjectMessengerIntegrationSchema } },
    },
    (request) => write(app, request, (ctx) => messenger.updateProjectChat(ctx, bot, request.params.projectId, request.body)),
  );

  app.delete(
    '/projects/:projectId/messenger-integration',
    { schema: { tags, summary: 'Stop posting to the group and unbind it (S:editor)', description: OFF.trim(), params: S.ProjectParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => messenger.deleteProjectChat(ctx, bot, request.params.projectId));
      return reply.code(204).send(null);
    },
  );
}
