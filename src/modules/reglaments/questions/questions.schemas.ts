import { Type, type Static } from 'typebox';
import { DateTime, FileSchema, Id, Name, Nullable, OrderIn } from '../../../platform/schemas.js';

export const AnswerSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    questionId: Type.Integer(),
    isRight: Nullable(Type.Boolean({ description: 'null below space editor, so the test stays a test' })),
  },
  { $id: 'ReglamentAnswer' },
);
export type AnswerDto = Static<typeof AnswerSchema>;

const questionFields = {
  id: Type.Integer(),
  name: Type.String({ description: 'the question text' }),
  reglamentId: Type.Integer(),
  createdAt: DateTime(),
  updatedAt: DateTime(),
  files: Type.Array(FileSchema),
};

/** Spec form of the questions list (and of create/reorder): `order` is an integer, answers included. */
export const QuestionSchema = Type.Object(
  { ...questionFields, order: Type.Integer({ description: 'position in the test' }), answers: Type.Array(AnswerSchema) },
  { $id: 'ReglamentQuestion' },
);
export type QuestionDto = Static<typeof QuestionSchema>;

/** Spec form of the rename (and move) response: no answers, `order` as a numeric string. */
export const QuestionBriefSchema = Type.Object(
  { ...questionFields, order: Type.String({ description: 'position in the test, a numeric string' }) },
  { $id: 'ReglamentQuestionBrief' },
);
export type QuestionBriefDto = Static<typeof QuestionBriefSchema>;

export const QuestionParams = Type.Object({ reglamentId: Id(), questionId: Id() });
export const QuestionFileParams = Type.Object({ reglamentId: Id(), questionId: Id(), fileId: Id() });
export const AnswerParams = Type.Object({ reglamentId: Id(), questionId: Id(), answerId: Id() });

export const CreateQuestionBody = Type.Object({ name: Name('the question text, 1-500 characters'), order: Type.Optional(OrderIn) });
export const NameBody = Type.Object({ name: Name() });
export const OrderBody = Type.Object({ order: OrderIn });
export const ReorderBody = Type.Object({
  ids: Type.Array(Id(), { minItems: 1, maxItems: 500, uniqueItems: true, description: 'every question of the reglament, in the new order' }),
});
export const CreateAnswerBody = Type.Object({ name: Name('the answer text, 1-500 characters'), isRight: Type.Optional(Type.Boolean({ default: false })) });
export const IsRightBody = Type.Object({ isRight: Type.Boolean() });
