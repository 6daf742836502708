import type { reglamentEvents, reglamentVersions } from '../../../db/schema/index.js';
import { iso } from '../../../platform/http.js';
import type { ReglamentEventDto, ReglamentVersionDto, ReglamentVersionWithContentDto } from './versions.schemas.js';

type VersionRow = Omit<typeof reglamentVersions.$inferSelect, 'content' | 'organizationId'> & { size: number };

export const presentVersion = (v: VersionRow): ReglamentVersionDto => ({
  id: Number(v.id),
  reglamentId: Number(v.reglamentId),
  number: v.number,
  name: v.name,
  userId: v.userId === null ? null : Number(v.userId),
  size: Number(v.size),
  createdAt: iso(v.createdAt)!,
});

export const presentVersionWithContent = (v: VersionRow & { content: string }): ReglamentVersionWithContentDto => ({ ...presentVersion(v), content: v.content });

export const presentEvent = (e: typeof reglamentEvents.$inferSelect): ReglamentEventDto => ({
  id: Number(e.id),
  reglamentId: Number(e.reglamentId),
  userId: e.userId === null ? null : Number(e.userId),
  action: e.action,
  details: e.details,
  createdAt: iso(e.createdAt)!,
});
