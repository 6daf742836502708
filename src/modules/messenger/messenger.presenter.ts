import { sql, type AnyColumn } from 'drizzle-orm';
import { iso } from '../../platform/http.js';
import type { MessengerIntegrationDto, ProjectMessengerIntegrationDto } from './messenger.schemas.js';

export interface PersonalRow {
  userId: number;
  status: 'pending' | 'active' | 'inactive';
  code: string | null;
  codeExpiresAt: Date | string | null;
  chatId: number | string | null;
  messengerUserId: number | string | null;
  username: string | null;
  notify: boolean;
}

export interface ProjectRow {
  organizationId: number;
  projectId: number;
  status: 'pending' | 'active' | 'inactive';
  code: string | null;
  codeExpiresAt: Date | string | null;
  chatId: number | string | null;
  chatTitle: string | null;
  events: string[];
  enabled: boolean;
  creatorId: number | null;
}

export const PERSONAL_COLUMNS = `user_id as "userId", status, code, code_expires_at as "codeExpiresAt", chat_id as "chatId",
  messenger_user_id as "messengerUserId", username, notify`;
export const PROJECT_COLUMNS = `organization_id as "organizationId", project_id as "projectId", status, code, code_expires_at as "codeExpiresAt",
  chat_id as "chatId", chat_title as "chatTitle", events, enabled, creator_id as "creatorId"`;

const num = (v: number | string | null) => (v === null ? null : Number(v));
// A code is shown only while it can still be used.
const liveCode = (row: { status: string; code: string | null; codeExpiresAt: Date | string | null }) =>
  row.status === 'pending' && row.codeExpiresAt !== null && new Date(row.codeExpiresAt).getTime() > Date.now() ? row.code : null;

export const presentPersonal = (row: PersonalRow, botUsername: string): MessengerIntegrationDto => {
  const code = liveCode(row);
  return {
    status: row.status,
    messengerUserId: num(row.messengerUserId),
    username: row.username,
    chatId: num(row.chatId),
    notify: row.notify,
    code,
    deepLink: code ? `https://t.me/${botUsername}?start=${code}` : null,
    codeExpiresAt: code ? iso(row.codeExpiresAt) : null,
  };
};

export const presentProject = (row: ProjectRow, botUsername: string): ProjectMessengerIntegrationDto => {
  const code = liveCode(row);
  return {
    projectId: Number(row.projectId),
    status: row.status,
    chatId: num(row.chatId),
    chatTitle: row.chatTitle,
    events: row.events,
    enabled: row.enabled,
    code,
    deepLink: code ? `https://t.me/${botUsername}?startgroup=${code}` : null,
    codeExpiresAt: code ? iso(row.codeExpiresAt) : null,
    creatorId: num(row.creatorId),
  };
};

/** For the User and Member forms: whether the user has a connected chat (never which one). */
export const messengerConnectedOf = (userId: AnyColumn) =>
  sql<boolean>`exists (select 1 from messenger_integrations mi where mi.user_id = ${userId} and mi.status = 'active')`.mapWith(Boolean);
