import { iso } from '../../platform/http.js';
import { fileLink } from '../files/files.presenter.js';
import type { PassedUserDto, ReglamentCreatedDto, ReglamentFullDto, ReglamentListItemDto } from './reglaments.schemas.js';

/** A reglament as queryReglaments returns it: its placement in one space and the caller's own flags. */
export interface ReglamentRecord {
  id: number;
  name: string;
  draft: boolean;
  content: string;
  version: number;
  createdAt: Date | string;
  updatedAt: Date | string;
  creatorId: number | null;
  creator: { id: number; email: string; name: string; avatarKey: string | null } | null;
  reglamentColumnId: number;
  order: number;
  usersPassed: Array<{ createdAt: string; reglamentId: number; userId: number }> | null;
  intro: boolean;
  mandatory: boolean;
  favorite: boolean;
  spaceIds: number[] | null;
  questionsCount: number;
  passedByMe: boolean;
}

export const presentPassedUser = (p: { createdAt: Date | string; reglamentId: number; userId: number }): PassedUserDto => ({
  createdAt: iso(p.createdAt)!,
  reglamentId: Number(p.reglamentId),
  userId: Number(p.userId),
});

export function presentReglamentCreated(r: ReglamentRecord): ReglamentCreatedDto {
  return {
    id: Number(r.id),
    name: r.name,
    reglamentColumnId: Number(r.reglamentColumnId),
    content: r.content,
    createdAt: iso(r.createdAt)!,
    updatedAt: iso(r.updatedAt)!,
    creatorId: r.creatorId === null ? null : Number(r.creatorId),
    order: Number(r.order),
    usersPassed: (r.usersPassed ?? []).map(presentPassedUser),
    intro: r.intro,
  };
}

export function presentReglamentListItem(r: ReglamentRecord): ReglamentListItemDto {
  return {
    id: Number(r.id),
    name: r.name,
    draft: r.draft,
    reglamentColumnId: Number(r.reglamentColumnId),
    content: r.content,
    createdAt: iso(r.createdAt)!,
    updatedAt: iso(r.updatedAt)!,
    creator: r.creator
      ? { id: Number(r.creator.id), email: r.creator.email, name: r.creator.name, avatar: r.creator.avatarKey ? fileLink(r.creator.avatarKey) : null }
      : null,
    order: String(r.order),
    usersPassed: (r.usersPassed ?? []).map(presentPassedUser),
  };
}

export function presentReglamentFull(r: ReglamentRecord): ReglamentFullDto {
  return {
    ...presentReglamentListItem(r),
    intro: r.intro,
    mandatory: r.mandatory,
    favorite: r.favorite,
    spaceIds: (r.spaceIds ?? []).map(Number),
    questionsCount: Number(r.questionsCount),
    passedByMe: r.passedByMe,
  };
}

