import { Type } from 'typebox';
import { DateTime, Nullable } from '../../../platform/schemas.js';
import { Paging } from '../../../platform/http.js';

export const SessionSchema = Type.Object(
  {
    id: Type.Integer(),
    createdAt: DateTime('when the session was opened (sign-in)'),
    lastUsedAt: DateTime('last request made with it (written at most once a minute)'),
    expiresAt: DateTime('sliding: each use pushes it SESSION_TTL_DAYS ahead'),
    ip: Nullable(Type.String({ description: 'client address at sign-in' })),
    userAgent: Nullable(Type.String({ description: 'User-Agent at sign-in' })),
    current: Type.Boolean({ description: 'the session this request was made with' }),
  },
  { $id: 'Session' },
);

export const SessionsQuery = Paging(50, 200);

export const RevokedSessionsSchema = Type.Object(
  { revokedSessions: Type.Integer({ minimum: 0, description: 'how many sessions were signed out' }) },
  { $id: 'RevokedSessions' },
);
