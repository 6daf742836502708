import { Type, type Static } from 'typebox';
import { Id } from '../../../platform/schemas.js';
import { PassedUserSchema } from '../reglaments.schemas.js';

export const TestAnswersBody = Type.Object({
  answers: Type.Array(
    Type.Object({
      questionId: Id(),
      answerIds: Type.Array(Id(), { maxItems: 100, description: 'the answers chosen for the question (none is a valid choice)' }),
    }),
    { maxItems: 500, description: 'one entry per question; a question left out counts as wrong' },
  ),
});
export type TestAnswersDto = Static<typeof TestAnswersBody>;

export const TestResultSchema = Type.Object(
  {
    passed: Type.Boolean({ description: 'every question answered with exactly its right answers' }),
    correct: Type.Integer({ description: 'questions answered right' }),
    total: Type.Integer({ description: 'questions of the test' }),
    wrongQuestionIds: Type.Array(Type.Integer(), { description: 'questions answered wrong or left out (never which answers are right)' }),
    passedUser: Type.Union([PassedUserSchema, Type.Null()], { description: 'the caller in usersPassed, when this attempt passed' }),
  },
  { $id: 'TestResult' },
);
export type TestResultDto = Static<typeof TestResultSchema>;
