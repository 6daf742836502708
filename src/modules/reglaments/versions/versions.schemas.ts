import { Type, type Static } from 'typebox';
import { DateTime, Id, Nullable } from '../../../platform/schemas.js';

const versionFields = {
  id: Type.Integer(),
  reglamentId: Type.Integer(),
  number: Type.Integer({ description: '1, 2, … per reglament' }),
  name: Nullable(Type.String()),
  userId: Nullable(Type.Integer({ description: 'who wrote the version' })),
  size: Type.Integer({ description: 'content size in bytes' }),
  createdAt: DateTime(),
};

export const ReglamentVersionSchema = Type.Object(versionFields, { $id: 'ReglamentVersion' });
export type ReglamentVersionDto = Static<typeof ReglamentVersionSchema>;

export const ReglamentVersionWithContentSchema = Type.Object({ ...versionFields, content: Type.String() }, { $id: 'ReglamentVersionWithContent' });
export type ReglamentVersionWithContentDto = Static<typeof ReglamentVersionWithContentSchema>;

export const ReglamentEventSchema = Type.Object(
  {
    id: Type.Integer(),
    reglamentId: Type.Integer(),
    userId: Nullable(Type.Integer()),
    action: Type.String({ description: 'created, renamed, content, published, mandatory, moved, space-added, space-removed, version, restored, passed, cleared, question, answer, file' }),
    details: Type.Record(Type.String(), Type.Unknown(), { description: 'what changed' }),
    createdAt: DateTime(),
  },
  { $id: 'ReglamentEvent' },
);
export type ReglamentEventDto = Static<typeof ReglamentEventSchema>;

export const VersionParams = Type.Object({ reglamentId: Id(), versionId: Id() });
export const WriteVersionBody = Type.Object({ name: Type.Optional(Nullable(Type.String({ maxLength: 500, description: 'a label for the snapshot' }))) });
