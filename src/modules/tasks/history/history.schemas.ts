import { Type, type Static } from 'typebox';
import { DateTime, Nullable } from '../../../platform/schemas.js';

/** History record (service-interface.md): returned as `history` next to `task` by every task change. */
export const HistorySchema = Type.Object(
  {
    id: Type.Integer(),
    updateDate: DateTime(),
    taskId: Type.Integer(),
    userId: Nullable(Type.Integer({ description: 'who acted; null when automation acted' })),
    state: Type.String({ description: 'a short human-readable sentence' }),
    type: Type.Integer({ description: 'conventions.md: 0 created, 3 moved, 7 colour, 13 planned time, 15 inspectors, 16 archived, 17 restored, …' }),
    projectName: Type.String(),
    commitName: Type.String(),
    commitLink: Type.String(),
    taskName: Type.String(),
  },
  { $id: 'HistoryRecord' },
);
export type HistoryDto = Static<typeof HistorySchema>;
