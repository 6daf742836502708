import type { FastifyInstance } from 'fastify';
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import { systemWrite, writeAboutUser, type Ctx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import { emit } from '../../platform/events.js';
import type { MessengerBot } from './messenger.bot.js';
import { authorizeProjectChat } from './messenger.policy.js';
import {
  PERSONAL_COLUMNS,
  PROJECT_COLUMNS,
  presentPersonal,
  presentProject,
  type PersonalRow,
  type ProjectRow,
} from './messenger.presenter.js';
import type {
  BotLoginInput,
  CreateProjectInput,
  MessengerIntegrationDto,
  ProjectMessengerIntegrationDto,
  UpdateProjectInput,
} from './messenger.schemas.js';

const CODE_MINUTES = 10;
// Telegram's start parameter takes [A-Za-z0-9_-], up to 64 characters.
const newCode = () => randomBytes(12).toString('base64url');
const P = sql.raw(PERSONAL_COLUMNS);
const G = sql.raw(PROJECT_COLUMNS);

// ---- personal (self) ----

async function personalOf(db: Queryable, userId: number): Promise<PersonalRow | undefined> {
  const [row] = await queryRows<PersonalRow>(db, sql`select ${P} from messenger_integrations where user_id = ${userId}`);
  return row;
}

export async function getPersonal(ctx: Ctx, bot: MessengerBot): Promise<MessengerIntegrationDto> {
  const row = await personalOf(ctx.db, ctx.actor.userId);
  if (!row) throw notFound('personal messenger integration');
  return presentPersonal(row, await bot.botUsername(ctx.db));
}

/** A new single-use code; an integration bound to a chat must be deleted first. */
export async function createPersonal(ctx: Ctx, bot: MessengerBot, notify: boolean): Promise<MessengerIntegrationDto> {
  const username = await bot.botUsername(ctx.db);
  const [row] = await queryRows<PersonalRow>(
    ctx.db,
    sql`insert into messenger_integrations (user_id, status, code, code_expires_at, notify)
        values (${ctx.actor.userId}, 'pending', ${newCode()}, now() + make_interval(mins => ${CODE_MINUTES}), ${notify})
        on conflict (user_id) do update set status = 'pending', code = excluded.code, code_expires_at = excluded.code_expires_at,
          notify = excluded.notify, chat_id = null, messenger_user_id = null, username = null, updated_at = now()
        where messenger_integrations.status <> 'active'
        returning ${P}`,
  );
  if (!row) throw new AppError('CONFLICT', 'a messenger is already connected: delete the integration first to connect another chat');
  return presentPersonal(row, username);
}

export async function deletePersonal(ctx: Ctx, bot: MessengerBot): Promise<void> {
  const [row] = await queryRows<PersonalRow>(ctx.db, sql`delete from messenger_integrations where user_id = ${ctx.actor.userId} returning ${P}`);
  if (!row) throw notFound('personal messenger integration');
  if (row.status === 'active') emitPersonal(ctx.db, 'integration.disconnected', row, await bot.botUsername(ctx.db));
}

function emitPersonal(db: Queryable, type: 'integration.connected' | 'integration.disconnected', row: PersonalRow, username: string): void {
  emit(db, { type, userId: Number(row.userId), payload: presentPersonal(row, username) });
}

// ---- project chats ----

async function projectChatOf(db: Queryable, projectId: number): Promise<ProjectRow | undefined> {
  const [row] = await queryRows<ProjectRow>(db, sql`select ${G} from project_messenger_integrations where project_id = ${projectId}`);
  return row;
}

export async function getProjectChat(ctx: Ctx, bot: MessengerBot, projectId: number): Promise<ProjectMessengerIntegrationDto> {
  await authorizeProjectChat(ctx.db, ctx.actor, projectId, 'read');
  const row = await projectChatOf(ctx.db, projectId);
  if (!row) throw notFound('project messenger integration');
  return presentProject(row, await bot.botUsername(ctx.db));
}

export async function createProjectChat(ctx: Ctx, bot: MessengerBot, projectId: number, input: CreateProjectInput): Promise<ProjectMessengerIntegrationDto> {
  await authorizeProjectChat(ctx.db, ctx.actor, projectId, 'write');
  const username = await bot.botUsername(ctx.db);
  const [row] = await queryRows<ProjectRow>(
    ctx.db,
    sql`insert into project_messenger_integrations (organization_id, project_id, status, code, code_expires_at, events, creator_id)
        values (${ctx.actor.organizationId}, ${projectId}, 'pending', ${newCode()}, now() + make_interval(mins => ${CODE_MINUTES}),
                ${`{${input.events.join(',')}}`}::text[], ${ctx.actor.userId})
        on conflict (project_id) do update set status = 'pending', code = excluded.code, code_expires_at = excluded.code_expires_at,
          events = excluded.events, creator_id = excluded.creator_id, chat_id = null, chat_title = null, enabled = true, updated_at = now()
        where project_messenger_integrations.status <> 'active'
        returning ${G}`,
  );
  if (!row) throw new AppError('CONFLICT', 'the project already posts to a group: delete the integration first to bind another');
  return presentProject(row, username);
}

export async function updateProjectChat(ctx: Ctx, bot: MessengerBot, projectId: number, input: UpdateProjectInput): Promise<ProjectMessengerIntegrationDto> {
  await authorizeProjectChat(ctx.db, ctx.actor, projectId, 'write');
  const events = input.events ? sql`${`{${input.events.join(',')}}`}::text[]` : sql`events`;
  const [row] = await queryRows<ProjectRow>(
    ctx.db,
    sql`update project_messenger_integrations set events = ${events}, enabled = coalesce(${input.enabled ?? null}::boolean, enabled), updated_at = now()
        where project_id = ${projectId} returning ${G}`,
  );
  if (!row) throw notFound('project messenger integration');
  return presentProject(row, await bot.botUsername(ctx.db));
}

export async function deleteProjectChat(ctx: Ctx, bot: MessengerBot, projectId: number): Promise<void> {
  await authorizeProjectChat(ctx.db, ctx.actor, projectId, 'write');
  const [row] = await queryRows<ProjectRow>(ctx.db, sql`delete from project_messenger_integrations where project_id = ${projectId} returning ${G}`);
  if (!row) throw notFound('project messenger integration');
  if (row.status === 'active') emit(ctx.db, { type: 'integration.disconnected', projectId, payload: presentProject(row, await bot.botUsername(ctx.db)) });
}

// ---- redeeming a code (the bot's /start, or bot-login) ----

export interface Chat {
  chatId: number;
  messengerUserId: number | null;
  username: string | null;
  chatTitle: string | null;
  /** What the bot saw: a personal code binds a private chat, a project code a group. Unknown for bot-login. */
  kind?: 'private' | 'group';
}

export type Redeemed =
  | { kind: 'personal'; userId: number; integration: MessengerIntegrationDto }
  | { kind: 'project'; projectId: number; integration: ProjectMessengerIntegrationDto };

/**
 * Binds the chat to whatever pending integration the code belongs to, once: the code is cleared in
 * the same statement that binds, so a second use (or a concurrent twin) finds nothing. Answers
 * null for an unknown, used or expired code, or one meant for the other kind of chat.
 */
export async function redeem(
  app: FastifyInstance,
  bot: MessengerBot,
  code: string,
  chat: Chat,
  /** Runs in the binding transaction, whatever it found (the bot confirms its update there). */
  then?: (db: Queryable, redeemed: Redeemed | null) => Promise<void>,
): Promise<Redeemed | null> {
  const username = await bot.botUsername();
  const live = sql`code = ${code} and status = 'pending' and code_expires_at > now()`;
  if (chat.kind !== 'group') {
    const [owner] = await queryRows<{ userId: number }>(
      app.database.db,
      sql`select user_id as "userId" from messenger_integrations where ${live}`,
    );
    if (owner) {
      return writeAboutUser(app, Number(owner.userId), async (db, org) => {
        const [row] = await queryRows<PersonalRow>(
          db,
          sql`update messenger_integrations set status = 'active', code = null, code_expires_at = null, chat_id = ${chat.chatId},
                messenger_user_id = ${chat.messengerUserId}, username = ${chat.username}, connected_at = now(), updated_at = now()
              where ${live} returning ${P}`,
        );
        const redeemed = row ? { kind: 'personal' as const, userId: Number(row.userId), integration: presentPersonal(row, username) } : null;
        if (row && org !== null) emitPersonal(db, 'integration.connected', row, username);
        await then?.(db, redeemed);
        return redeemed;
      });
    }
  }
  if (chat.kind !== 'private') {
    const [project] = await queryRows<{ org: number }>(app.database.db, sql`select organization_id as org from project_messenger_integrations where ${live}`);
    if (project) {
      return systemWrite(app, Number(project.org), async (sys) => {
        const [row] = await queryRows<ProjectRow>(
          sys.db,
          sql`update project_messenger_integrations set status = 'active', code = null, code_expires_at = null, chat_id = ${chat.chatId},
                chat_title = ${chat.chatTitle}, updated_at = now()
              where ${live} returning ${G}`,
        );
        const redeemed = row ? { kind: 'project' as const, projectId: Number(row.projectId), integration: presentProject(row, username) } : null;
        if (redeemed) emit(sys.db, { type: 'integration.connected', projectId: redeemed.projectId, payload: redeemed.integration });
        await then?.(sys.db, redeemed);
        return redeemed;
      });
    }
  }
  return null;
}

/** POST /integrations/messenger/bot-login: the same redemption for a bot run elsewhere. */
export async function botLogin(app: FastifyInstance, bot: MessengerBot, input: BotLoginInput) {
  const redeemed = await redeem(app, bot, input.code, {
    chatId: input.chatId,
    messengerUserId: input.messengerUserId,
    username: input.username,
    chatTitle: input.chatTitle ?? null,
  });
  if (!redeemed) throw new AppError('NOT_FOUND', 'no pending integration has this code (unknown, used or expired)');
  return redeemed.integration;
}
