import type { InferSelectModel } from 'drizzle-orm';
import type { users } from '../../db/schema/index.js';
import { iso } from '../../platform/http.js';
import { fileLink } from '../files/files.presenter.js';
import type { UserDto } from './users.schemas.js';

export type UserRow = InferSelectModel<typeof users>;

export function presentUser(row: UserRow, avatarKey: string | null, messengerConnected: boolean): UserDto {
  return {
    id: row.id,
    email: row.email,
    emailVerified: row.emailVerifiedAt !== null,
    name: row.name,
    avatar: avatarKey ? fileLink(avatarKey) : null,
    phoneNumber: row.phoneNumber,
    messengerLink: row.messengerLink,
    messengerConnected,
    jobTitle: row.jobTitle,
    codeHostLink: row.codeHostLink,
    birthDate: iso(row.birthDate),
    activeOrganizationId: row.activeOrganizationId,
    language: row.language as UserDto['language'],
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
  };
}
