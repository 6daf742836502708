import { Type } from 'typebox';
import { Color, DateTime, Id, Name, Nullable } from '../../platform/schemas.js';

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
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
});
export const CreateLabelBody = Type.Object({ name: Name(), color: Color });
export const UpdateLabelBody = Type.Object({ name: Type.Optional(Name()), color: Type.Optional(Color) }, { minProperties: 1 });
