import { eq } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { organizations } from '../../db/schema/organizations.js';
import type { Actor } from '../../platform/auth.js';
import { AppError, forbidden } from '../../platform/errors.js';

/**
 * routes.md "AI assistant": the model settings, the index and its jobs are the organization's
 * (owners and admins: they decide where documents are sent); asking is for every member, through
 * what that member may read. The organization's ai-enabled switch gates asking only, so an admin
 * can configure and index before turning the assistant on.
 */
const RULES = {
  manageSettings: 'admin',
  manageIndex: 'admin',
  ask: 'member',
} as const;

export type AiAction = keyof typeof RULES;

const orgAdmin = (actor: Actor) => actor.orgRole === 'owner' || actor.orgRole === 'admin';

export function authorizeAi(actor: Actor, action: AiAction): void {
  if (RULES[action] === 'admin' && !orgAdmin(actor)) throw forbidden('organization admin role required');
}

/** 403 AI_DISABLED while the organization has the assistant switched off. */
export async function requireAiEnabled(db: Queryable, actor: Actor): Promise<void> {
  const [org] = await db.select({ aiEnabled: organizations.aiEnabled }).from(organizations).where(eq(organizations.id, actor.organizationId));
  if (!org?.aiEnabled) throw new AppError('AI_DISABLED', 'the AI assistant is switched off for this organization (PATCH /user/organization/ai-enabled)');
}
