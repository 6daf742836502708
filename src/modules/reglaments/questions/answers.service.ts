import { and, eq, sql } from 'drizzle-orm';
import { reglamentAnswers } from '../../../db/schema/index.js';
import type { Ctx } from '../../../platform/context.js';
import { notFound } from '../../../platform/errors.js';
import { recordEvent } from '../reglaments.events.js';
import { presentAnswer } from './questions.presenter.js';
import type { AnswerDto } from './questions.schemas.js';
import { announceQuestion, authorizeQuestion } from './questions.service.js';

async function findAnswer(ctx: Ctx, questionId: number, answerId: number) {
  const [answer] = await ctx.db
    .select()
    .from(reglamentAnswers)
    .where(and(eq(reglamentAnswers.id, answerId), eq(reglamentAnswers.questionId, questionId)));
  if (!answer) throw notFound('answer');
  return answer;
}

export async function createAnswer(ctx: Ctx, reglamentId: number, questionId: number, input: { name: string; isRight?: boolean }): Promise<AnswerDto> {
  const access = await authorizeQuestion(ctx, reglamentId, questionId);
  const [row] = await ctx.db
    .insert(reglamentAnswers)
    .values({ organizationId: ctx.actor.organizationId, questionId, name: input.name.trim(), isRight: input.isRight ?? false })
    .returning();
  await recordEvent(ctx, reglamentId, 'answer', { change: 'created', questionId, answerId: row!.id });
  await announceQuestion(ctx, access.homeSpaceId, reglamentId, questionId);
  return presentAnswer(row!);
}

/** Changes one property of an answer (its text or whether it is right). */
export async function updateAnswer(ctx: Ctx, reglamentId: number, questionId: number, answerId: number, change: { name: string } | { isRight: boolean }): Promise<AnswerDto> {
  const access = await authorizeQuestion(ctx, reglamentId, questionId);
  await findAnswer(ctx, questionId, answerId);
  const set = 'name' in change ? { name: change.name.trim() } : { isRight: change.isRight };
  const [row] = await ctx.db.update(reglamentAnswers).set({ ...set, updatedAt: sql`now()` }).where(eq(reglamentAnswers.id, answerId)).returning();
  await recordEvent(ctx, reglamentId, 'answer', { change: 'name' in change ? 'renamed' : 'is-right', questionId, answerId, ...set });
  await announceQuestion(ctx, access.homeSpaceId, reglamentId, questionId);
  return presentAnswer(row!);
}

export async function deleteAnswer(ctx: Ctx, reglamentId: number, questionId: number, answerId: number): Promise<void> {
  const access = await authorizeQuestion(ctx, reglamentId, questionId);
  await findAnswer(ctx, questionId, answerId);
  await ctx.db.delete(reglamentAnswers).where(eq(reglamentAnswers.id, answerId));
  await recordEvent(ctx, reglamentId, 'answer', { change: 'deleted', questionId, answerId });
  await announceQuestion(ctx, access.homeSpaceId, reglamentId, questionId);
}
