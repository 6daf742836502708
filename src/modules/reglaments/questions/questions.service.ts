import { and, eq, sql } from 'drizzle-orm';
import { reglamentQuestionFiles, reglamentQuestions } from '../../../db/schema/index.js';
import type { Ctx } from '../../../platform/context.js';
import { AppError, notFound } from '../../../platform/errors.js';
import type { FileStore } from '../../../platform/files.js';
import { lockOrder, placeAt, compact, writeOrder, type OrderedScope } from '../../../platform/ordering.js';
import { orderToInt } from '../../../platform/schemas.js';
import { recordFile, type ReceivedFile } from '../../files/files.service.js';
import { presentFile } from '../../files/files.presenter.js';
import { emitReglament, questionForReaders, recordEvent } from '../reglaments.events.js';
import { authorizeReglament, may } from '../reglaments.policy.js';
import { deleteFiles } from '../../files/files.service.js';
import { presentQuestion, presentQuestionBrief } from './questions.presenter.js';
import { queryQuestions } from './questions.queries.js';
import type { QuestionBriefDto, QuestionDto } from './questions.schemas.js';

const questionsOf = (reglamentId: number): OrderedScope => ({ table: 'reglament_questions', key: 'id', where: sql`reglament_id = ${reglamentId}` });

/** Authorizes the test change on the reglament, then finds the question in it (404 when it is not there). */
export async function authorizeQuestion(ctx: Ctx, reglamentId: number, questionId: number) {
  const access = await authorizeReglament(ctx.db, ctx.actor, reglamentId, 'manageTest');
  const [question] = await ctx.db
    .select({ id: reglamentQuestions.id })
    .from(reglamentQuestions)
    .where(and(eq(reglamentQuestions.id, questionId), eq(reglamentQuestions.reglamentId, reglamentId)));
  if (!question) throw notFound('question');
  return access;
}

/**
 * reglament.question.* with the question as a reader sees it (answers without isRight). Answer and
 * file changes are changes of their question, announced with it loaded once.
 */
export async function announceQuestion(ctx: Ctx, homeSpaceId: number, reglamentId: number, questionId: number): Promise<void> {
  const question = presentQuestion(await loadQuestion(ctx, reglamentId, questionId, false));
  emitReglament(ctx, 'reglament.question.updated', homeSpaceId, question);
}

async function loadQuestion(ctx: Ctx, reglamentId: number, questionId: number, showRight: boolean) {
  const [q] = (await queryQuestions(ctx.db, reglamentId, { ids: [questionId], showRight })).items;
  if (!q) throw notFound('question');
  return q;
}

export async function listQuestions(ctx: Ctx, reglamentId: number, page: { limit: number; offset: number }) {
  const { role } = await authorizeReglament(ctx.db, ctx.actor, reglamentId, 'read');
  const { items, total } = await queryQuestions(ctx.db, reglamentId, { showRight: may(role, 'readAnswers'), ...page });
  return { items: items.map(presentQuestion), total };
}

export async function createQuestion(ctx: Ctx, reglamentId: number, input: { name: string; order?: number | string }): Promise<QuestionDto> {
  const access = await authorizeReglament(ctx.db, ctx.actor, reglamentId, 'manageTest');
  const [row] = await ctx.db
    .insert(reglamentQuestions)
    .values({ organizationId: ctx.actor.organizationId, reglamentId, name: input.name.trim(), order: 0 })
    .returning({ id: reglamentQuestions.id });
  await placeAt(ctx.db, questionsOf(reglamentId), row!.id, orderToInt(input.order));
  await recordEvent(ctx, reglamentId, 'question', { change: 'created', questionId: row!.id });
  const question = presentQuestion(await loadQuestion(ctx, reglamentId, row!.id, true));
  emitReglament(ctx, 'reglament.question.created', access.homeSpaceId, questionForReaders(question));
  return question;
}

/** Puts the test in the given order; `ids` must name every question of the reglament exactly once. */
export async function reorderQuestions(ctx: Ctx, reglamentId: number, ids: number[]): Promise<QuestionDto[]> {
  const access = await authorizeReglament(ctx.db, ctx.actor, reglamentId, 'manageTest');
  const current = await lockOrder(ctx.db, questionsOf(reglamentId));
  const known = new Set(current);
  if (ids.length !== current.length || ids.some((id) => !known.has(id))) {
    throw new AppError('VALIDATION_FAILED', 'ids must list every question of the reglament once', [{ path: '/ids', message: 'must list every question of the reglament once' }]);
  }
  await writeOrder(ctx.db, questionsOf(reglamentId), ids);
  await recordEvent(ctx, reglamentId, 'question', { change: 'reordered', ids });
  const questions = (await queryQuestions(ctx.db, reglamentId, { showRight: true })).items.map(presentQuestion);
  // Every position moved; the questions are loaded already, so each is announced at no cost.
  for (const q of questions) emitReglament(ctx, 'reglament.question.updated', access.homeSpaceId, questionForReaders(q));
  return questions;
}

export async function renameQuestion(ctx: Ctx, reglamentId: number, questionId: number, name: string): Promise<QuestionBriefDto> {
  const access = await authorizeQuestion(ctx, reglamentId, questionId);
  await ctx.db.update(reglamentQuestions).set({ name: name.trim(), updatedAt: sql`now()` }).where(eq(reglamentQuestions.id, questionId));
  await recordEvent(ctx, reglamentId, 'question', { change: 'renamed', questionId, name: name.trim() });
  return briefAndAnnounce(ctx, access.homeSpaceId, reglamentId, questionId);
}

export async function moveQuestion(ctx: Ctx, reglamentId: number, questionId: number, order: number | string): Promise<QuestionBriefDto> {
  const access = await authorizeQuestion(ctx, reglamentId, questionId);
  const at = await placeAt(ctx.db, questionsOf(reglamentId), questionId, orderToInt(order));
  await recordEvent(ctx, reglamentId, 'question', { change: 'moved', questionId, order: at });
  return briefAndAnnounce(ctx, access.homeSpaceId, reglamentId, questionId);
}

/** The brief form the route answers, and the question (answers without isRight) for the change log, from one load. */
async function briefAndAnnounce(ctx: Ctx, homeSpaceId: number, reglamentId: number, questionId: number): Promise<QuestionBriefDto> {
  const record = await loadQuestion(ctx, reglamentId, questionId, true);
  emitReglament(ctx, 'reglament.question.updated', homeSpaceId, questionForReaders(presentQuestion(record)));
  return presentQuestionBrief(record);
}

/** Deletes a question with its answers and files (blobs once the delete commits). */
export async function deleteQuestion(ctx: Ctx, store: FileStore, reglamentId: number, questionId: number): Promise<void> {
  const access = await authorizeQuestion(ctx, reglamentId, questionId);
  await lockOrder(ctx.db, questionsOf(reglamentId));
  const attached = await ctx.db.select({ fileId: reglamentQuestionFiles.fileId }).from(reglamentQuestionFiles).where(eq(reglamentQuestionFiles.questionId, questionId));
  await deleteFiles(ctx, store, attached.map((f) => f.fileId));
  await ctx.db.delete(reglamentQuestions).where(eq(reglamentQuestions.id, questionId));
  await compact(ctx.db, questionsOf(reglamentId));
  await recordEvent(ctx, reglamentId, 'question', { change: 'deleted', questionId });
  emitReglament(ctx, 'reglament.question.deleted', access.homeSpaceId, { id: questionId, reglamentId });
}

export async function addQuestionFiles(ctx: Ctx, store: FileStore, reglamentId: number, questionId: number, received: ReceivedFile[]) {
  const access = await authorizeQuestion(ctx, reglamentId, questionId);
  const out = [];
  for (const file of received) {
    const row = await recordFile(ctx, store, file, { purpose: 'reglament-question', organizationId: ctx.actor.organizationId, spaceId: access.homeSpaceId });
    await ctx.db.insert(reglamentQuestionFiles).values({ organizationId: ctx.actor.organizationId, questionId, fileId: row.id });
    out.push(presentFile(row));
  }
  await recordEvent(ctx, reglamentId, 'file', { change: 'added', questionId, fileIds: out.map((f) => f.id) });
  await announceQuestion(ctx, access.homeSpaceId, reglamentId, questionId);
  return out;
}

export async function deleteQuestionFile(ctx: Ctx, store: FileStore, reglamentId: number, questionId: number, fileId: number): Promise<void> {
  const access = await authorizeQuestion(ctx, reglamentId, questionId);
  const [attached] = await ctx.db
    .select({ fileId: reglamentQuestionFiles.fileId })
    .from(reglamentQuestionFiles)
    .where(and(eq(reglamentQuestionFiles.questionId, questionId), eq(reglamentQuestionFiles.fileId, fileId)));
  if (!attached) throw notFound('file of this question');
  // Unlinked here: the file itself stays if a task cover or a message still shows it.
  await ctx.db.delete(reglamentQuestionFiles).where(and(eq(reglamentQuestionFiles.questionId, questionId), eq(reglamentQuestionFiles.fileId, fileId)));
  await deleteFiles(ctx, store, [fileId]);
  await recordEvent(ctx, reglamentId, 'file', { change: 'deleted', questionId, fileId });
  await announceQuestion(ctx, access.homeSpaceId, reglamentId, questionId);
}
