import { Type } from 'typebox';
import { Color, DateTime, Id, Name, Nullable } from '../../platform/schemas.js';
import { Offset } from '../../platform/http.js';

export const LabelSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    color: Type.String(),
    creatorId: Nullable(Type.Integer()),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'Label' },
);

export const LabelParams = Type.Object({ labelId: Id() });
export const ListLabelsQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 200, description: 'part of the name, case-insensitive' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  offset: Offset(),
});
export const CreateLabelBody = Type.Object({ name: Name(), color: Color });
export const UpdateLabelBody = Type.Object({ name: Type.Optional(Name()), color: Type.Optional(Color) }, { minProperties: 1 });
