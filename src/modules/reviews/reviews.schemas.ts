import { Type } from 'typebox';
import { DateTime, Nullable } from '../../platform/schemas.js';

const Category = Type.Union([Type.Literal('bug'), Type.Literal('idea'), Type.Literal('praise'), Type.Literal('other')]);

export const CreateReviewBody = Type.Object({
  rating: Type.Integer({ minimum: 1, maximum: 5 }),
  text: Type.String({ minLength: 1, maxLength: 5000 }),
  category: Type.Optional(Category),
  page: Type.Optional(Type.String({ maxLength: 2000, description: 'where in the client the review was written' })),
});

export const ReviewSchema = Type.Object(
  {
    id: Type.Integer(),
    userId: Nullable(Type.Integer()),
    organizationId: Type.Integer(),
    rating: Type.Integer(),
    text: Type.String(),
    category: Category,
    page: Nullable(Type.String()),
    createdAt: DateTime(),
  },
  { $id: 'Review' },
);
