import { t } from '../i18n';

/** A taker's choices: question id → the answer ids ticked. */
export type Choices = ReadonlyMap<number, ReadonlySet<number>>;

interface QuestionLike {
  id: number;
  answers: ReadonlyArray<{ id: number }>;
}

export function toggle(choices: Choices, questionId: number, answerId: number): Choices {
  const next = new Map(choices);
  const picked = new Set(next.get(questionId));
  if (picked.has(answerId)) picked.delete(answerId);
  else picked.add(answerId);
  next.set(questionId, picked);
  return next;
}

/**
 * The test's body: every question of the test, in its order, with its ticked answers (an empty
 * list for one left out, which counts as wrong rather than being silently dropped). Ids of answers
 * no longer in a question are left out.
 */
export function submission(questions: readonly QuestionLike[], choices: Choices): { answers: Array<{ questionId: number; answerIds: number[] }> } {
  return {
    answers: questions.map((q) => {
      const picked = choices.get(q.id) ?? new Set<number>();
      return { questionId: q.id, answerIds: q.answers.map((a) => a.id).filter((id) => picked.has(id)) };
    }),
  };
}

export const unanswered = (questions: readonly QuestionLike[], choices: Choices) => questions.filter((q) => !(choices.get(q.id)?.size ?? 0)).length;

export function verdict(result: { passed: boolean; correct: number; total: number }): string {
  return t(result.passed ? 'quiz.passed' : 'quiz.notPassed', { correct: result.correct, total: result.total });
}
