import { count, desc } from 'drizzle-orm';
import { reviews } from '../../db/schema/index.js';
import type { Ctx } from '../../platform/context.js';
import { iso } from '../../platform/http.js';
import { authorizeReadReviews } from './reviews.policy.js';

type ReviewRow = typeof reviews.$inferSelect;
const present = (r: ReviewRow) => ({
  id: r.id,
  userId: r.userId,
  organizationId: r.organizationId,
  rating: r.rating,
  text: r.text,
  category: r.category,
  page: r.page,
  createdAt: iso(r.createdAt)!,
});

export async function createReview(ctx: Ctx, input: { rating: number; text: string; category?: ReviewRow['category']; page?: string }) {
  const [row] = await ctx.db
    .insert(reviews)
    .values({ organizationId: ctx.actor.organizationId, userId: ctx.actor.userId, rating: input.rating, text: input.text, category: input.category ?? 'other', page: input.page ?? null })
    .returning();
  return present(row!);
}

export async function listReviews(ctx: Ctx, operatorEmails: string[], page: { limit: number; offset: number }) {
  await authorizeReadReviews(ctx.db, ctx.actor, operatorEmails);
  const [total] = await ctx.db.select({ n: count() }).from(reviews);
  const rows = await ctx.db.select().from(reviews).orderBy(desc(reviews.id)).limit(page.limit).offset(page.offset);
  return { total: Number(total?.n ?? 0), items: rows.map(present) };
}
