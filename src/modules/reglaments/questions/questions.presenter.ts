import { iso } from '../../../platform/http.js';
import { fileLink } from '../../files/files.presenter.js';
import type { AnswerDto, QuestionBriefDto, QuestionDto } from './questions.schemas.js';

/** A question as queryQuestions returns it (answers and files aggregated as JSON). */
export interface QuestionRecord {
  id: number;
  reglamentId: number;
  name: string;
  order: number;
  createdAt: Date | string;
  updatedAt: Date | string;
  answers: Array<{ id: number; name: string; questionId: number; isRight: boolean | null }> | null;
  files: Array<{ id: number; key: string; name: string; size: number; mimeType: string }> | null;
}

export const presentAnswer = (a: { id: number; name: string; questionId: number; isRight: boolean | null }): AnswerDto => ({
  id: Number(a.id),
  name: a.name,
  questionId: Number(a.questionId),
  isRight: a.isRight,
});

function presentBase(q: QuestionRecord) {
  return {
    id: Number(q.id),
    name: q.name,
    reglamentId: Number(q.reglamentId),
    createdAt: iso(q.createdAt)!,
    updatedAt: iso(q.updatedAt)!,
    files: (q.files ?? []).map((f) => ({ id: Number(f.id), link: fileLink(f.key), name: f.name, size: Number(f.size), mimeType: f.mimeType })),
  };
}

export const presentQuestion = (q: QuestionRecord): QuestionDto => ({
  ...presentBase(q),
  order: Number(q.order),
  answers: (q.answers ?? []).map(presentAnswer),
});

export const presentQuestionBrief = (q: QuestionRecord): QuestionBriefDto => ({ ...presentBase(q), order: String(q.order) });
