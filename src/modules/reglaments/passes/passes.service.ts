import { and, eq, inArray, sql } from 'drizzle-orm';
import { reglamentAnswers, reglamentPasses, reglamentQuestions } from '../../../db/schema/index.js';
import type { Ctx } from '../../../platform/context.js';
import { AppError } from '../../../platform/errors.js';
import { emitReglament, recordEvent } from '../reglaments.events.js';
import { announceReglament } from '../reglaments.service.js';
import { authorizeReglament } from '../reglaments.policy.js';
import { presentPassedUser, presentReglamentFull } from '../reglaments.presenter.js';
import { queryReglaments } from '../reglaments.queries.js';
import type { PassedUserDto } from '../reglaments.schemas.js';
import type { TestAnswersDto, TestResultDto } from './passes.schemas.js';

/** Adds the caller to usersPassed once; a repeat returns the first pass. Records the event only the first time. */
async function markPassed(ctx: Ctx, reglamentId: number, homeSpaceId: number, details: Record<string, unknown>): Promise<PassedUserDto> {
  const { db, actor } = ctx;
  const inserted = await db
    .insert(reglamentPasses)
    .values({ organizationId: actor.organizationId, reglamentId, userId: actor.userId })
    .onConflictDoNothing()
    .returning();
  if (inserted.length > 0) await recordEvent(ctx, reglamentId, 'passed', details);
  const [row] = inserted.length
    ? inserted
    : await db.select().from(reglamentPasses).where(and(eq(reglamentPasses.reglamentId, reglamentId), eq(reglamentPasses.userId, actor.userId)));
  const passed = presentPassedUser(row!);
  if (inserted.length > 0) emitReglament(ctx, 'reglament.passed', homeSpaceId, passed);
  return passed;
}

async function questionIdsOf(ctx: Ctx, reglamentId: number): Promise<number[]> {
  const rows = await ctx.db.select({ id: reglamentQuestions.id }).from(reglamentQuestions).where(eq(reglamentQuestions.reglamentId, reglamentId));
  return rows.map((r) => Number(r.id));
}

/** Acknowledging is for reglaments without a test; one with questions is passed by its test. */
export async function acknowledgeReglament(ctx: Ctx, reglamentId: number): Promise<PassedUserDto> {
  const access = await authorizeReglament(ctx.db, ctx.actor, reglamentId, 'pass');
  if ((await questionIdsOf(ctx, reglamentId)).length > 0) {
    throw new AppError('TEST_REQUIRED', 'this reglament has a test; pass it (POST …/test-results) instead');
  }
  return markPassed(ctx, reglamentId, access.homeSpaceId, { via: 'acknowledge' });
}

/**
 * Checks a test submission. A question is right when the chosen answer set equals its right answers
 * exactly; the test passes when every question is right. The result names wrong questions only,
 * never the right answers; a failed attempt writes nothing.
 */
export async function passTest(ctx: Ctx, reglamentId: number, input: TestAnswersDto): Promise<TestResultDto> {
  const { db } = ctx;
  const access = await authorizeReglament(db, ctx.actor, reglamentId, 'pass');
  const questionIds = await questionIdsOf(ctx, reglamentId);
  if (questionIds.length === 0) throw new AppError('BAD_REQUEST', 'this reglament has no test; acknowledge it (POST …/passed-users) instead');

  const chosen = new Map<number, Set<number>>();
  input.answers.forEach((a, i) => {
    if (chosen.has(a.questionId)) throw invalid(`/answers/${i}/questionId`, 'names a question already answered');
    if (!questionIds.includes(a.questionId)) throw reference(`/answers/${i}/questionId`, 'is not a question of this reglament');
    chosen.set(a.questionId, new Set(a.answerIds));
  });
  const answers = await db
    .select({ id: reglamentAnswers.id, questionId: reglamentAnswers.questionId, isRight: reglamentAnswers.isRight })
    .from(reglamentAnswers)
    .where(inArray(reglamentAnswers.questionId, questionIds));
  const questionOf = new Map(answers.map((a) => [Number(a.id), Number(a.questionId)]));
  input.answers.forEach((a, i) => {
    if (a.answerIds.some((id) => questionOf.get(id) !== a.questionId)) throw reference(`/answers/${i}/answerIds`, 'names an answer of another question');
  });

  const wrongQuestionIds = questionIds
    .filter((q) => {
      const right = new Set(answers.filter((a) => Number(a.questionId) === q && a.isRight).map((a) => Number(a.id)));
      const picked = chosen.get(q);
      return !picked || picked.size !== right.size || [...picked].some((id) => !right.has(id));
    })
    .sort((a, b) => a - b);
  const total = questionIds.length;
  const passed = wrongQuestionIds.length === 0;
  const passedUser = passed ? await markPassed(ctx, reglamentId, access.homeSpaceId, { via: 'test', total }) : null;
  return { passed, correct: total - wrongQuestionIds.length, total, wrongQuestionIds, passedUser };
}

const invalid = (path: string, message: string) => new AppError('VALIDATION_FAILED', `${path} ${message}`, [{ path, message }]);
const reference = (path: string, message: string) => new AppError('REFERENCE_NOT_FOUND', `${path} ${message}`, [{ path, message }]);

/** Empties usersPassed: everyone has to pass again (after the content changed, say). */
export async function clearPassedUsers(ctx: Ctx, reglamentId: number): Promise<void> {
  const access = await authorizeReglament(ctx.db, ctx.actor, reglamentId, 'clearPasses');
  const gone = await ctx.db.delete(reglamentPasses).where(eq(reglamentPasses.reglamentId, reglamentId)).returning({ userId: reglamentPasses.userId });
  await recordEvent(ctx, reglamentId, 'cleared', { count: gone.length });
  // usersPassed emptied: the reglament as it now reads.
  if (gone.length > 0) await announceReglament(ctx, 'reglament.updated', reglamentId, access.homeSpaceId);
}

/**
 * What the caller still has to pass, for the client's banner: published mandatory reglaments of the
 * spaces it is a member of, and the intro reglaments of those spaces, that it has not passed.
 * Membership, not organization rank, decides: an organization admin is not asked to pass every space's reglaments.
 */
export async function listMyMandatory(ctx: Ctx, page: { limit: number; offset: number }) {
  const me = ctx.actor.userId;
  const { items, total } = await queryReglaments(ctx.db, ctx.actor, {
    draft: false,
    where: sql`not exists (select 1 from reglament_passes mp where mp.reglament_id = r.id and mp.user_id = ${me})
      and ((r.mandatory and exists (select 1 from reglament_spaces m join space_members sm on sm.space_id = m.space_id
                                    where m.reglament_id = r.id and sm.user_id = ${me}))
        or exists (select 1 from spaces s join space_members sm on sm.space_id = s.id
                   where s.intro_reglament_id = r.id and sm.user_id = ${me}))`,
    ...page,
  });
  return { items: items.map(presentReglamentFull), total };
}
