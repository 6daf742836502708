import { eq } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { users } from '../../db/schema/index.js';
import type { Actor } from '../../platform/auth.js';
import { forbidden } from '../../platform/errors.js';

/** Reviews are read by the service operator, not by organizations: operators are flagged users or listed emails. */
export async function authorizeReadReviews(db: Queryable, actor: Actor, operatorEmails: string[]): Promise<void> {
  const [user] = await db.select({ email: users.email, isOperator: users.isOperator }).from(users).where(eq(users.id, actor.userId));
  if (!user || !(user.isOperator || operatorEmails.includes(user.email.toLowerCase()))) throw forbidden('service operators only');
}
