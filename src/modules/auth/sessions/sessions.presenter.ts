import type { Static } from 'typebox';
import type { sessions } from '../../../db/schema/index.js';
import { iso } from '../../../platform/http.js';
import type { SessionSchema } from './sessions.schemas.js';

type SessionRow = typeof sessions.$inferSelect;

/** Never the token hash: a session is shown by what its owner can recognise it by. */
export const presentSession = (s: SessionRow, currentSessionId: number | null): Static<typeof SessionSchema> => ({
  id: s.id,
  createdAt: iso(s.createdAt)!,
  lastUsedAt: iso(s.lastUsedAt)!,
  expiresAt: iso(s.expiresAt)!,
  ip: s.ip,
  userAgent: s.userAgent,
  current: s.id === currentSessionId,
});
